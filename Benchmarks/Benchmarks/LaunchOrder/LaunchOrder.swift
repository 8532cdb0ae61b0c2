import AppexSystem
import Benchmark
import Foundation

// A launch order as appexd writes it and its launcher reads it (docs/zygote.md): the encoding
// of its own (LaunchOrder+Encoding), and beside it, in the same process, the baseline: the
// same order through Foundation's JSONEncoder and JSONDecoder, as the socket carried it
// before. The order is one like appexd's for the benchmark extension: its paths, a dozen
// variables of environment, and the sandbox's restrictions with fifteen Landlock rules.

let home = "/home/someone/.local/share/appex"
let bundle = "\(home)/Applications/com.example.bench-0281f3389cd1/Bench.app/PlugIns/BenchExtension.appex"
let order = LaunchOrder.make(ProcessLaunch(
    executable: "\(bundle)/BenchExtension", arguments: [],
    environment: Dictionary(uniqueKeysWithValues: (0..<12).map { ("APPEX_VARIABLE_\($0)", "\(bundle)/value-\($0)") }),
    directory: "\(home)/Containers/com.example.bench.echo", diesWithParent: true, addressSpaceLimit: 5 << 30,
    restrictions: ProcessRestrictions(
        namespaces: [.user, .pid, .mount], resourceLimits: [4: 0, 6: 256, 7: 1024],
        landlock: LandlockRuleset(abi: 6, handledFilesystem: .known(by: 6), scopes: [.signals],
                                  rules: (["/usr", "/bin", "/lib", "/lib64", "/sbin", "/opt", bundle, "/etc", "/dev/urandom", "/dev/random",
                                           "/dev/zero", "/sys/devices/system/cpu", "/proc", "/dev/null", "\(home)/Containers/com.example.bench.echo"])
                                      .map { LandlockRuleset.Rule($0, .read) }),
        seccompBaseline: true, hiddenPaths: ["\(home)/run", "/tmp/.X11-unix"])), mainAddress: 0x1234).0

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                           maxDuration: .seconds(3), maxIterations: 10_000)

    Benchmark("Launch order written and read baseline: Foundation's JSON") { benchmark in
        for _ in benchmark.scaledIterations {
            let bytes = try JSONEncoder().encode(order)
            blackHole(try JSONDecoder().decode(LaunchOrder.self, from: bytes))
        }
    }

    Benchmark("Launch order written and read: its own encoding") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try LaunchOrder(decoding: order.encoded()))
        }
    }
}
