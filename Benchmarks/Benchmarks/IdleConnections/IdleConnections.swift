import AppexBenchmarkSupport
import AppexSystem
import Benchmark

// Issue 39's goal 3 as a benchmark: 1,000 host connections that greet appexd and then say
// nothing (eight BenchIdleClients processes of 125, as appexd lets one process hold 128),
// and what they cost it. Two appexds run side by side, one holding the thousand and one
// holding none, the baseline; in each iteration a new client connects, greets and pings
// each of them in turn, the first alternating, and each one's footprint is read.
// Targets: the new client served in ≤ 5 ms, and appexd's footprint ≤ 10 MiB more.

nonisolated(unsafe) var holding: RuntimeHome?
nonisolated(unsafe) var baseline: RuntimeHome?
nonisolated(unsafe) var holders: [ChildProcess] = []
nonisolated(unsafe) var daemons: (holding: Int32, baseline: Int32) = (0, 0)

extension BenchmarkMetric {
    /// A new client's connect, Hello → Welcome and Ping → Pong, to the appexd holding 1,000.
    static let newClientHolding = BenchmarkMetric.custom("new client, 1,000 held (µs)")
    /// The same to the appexd holding none, in the same iteration.
    static let newClientBaseline = BenchmarkMetric.custom("new client, none held (µs)")
    /// The first over the second, in percent.
    static let holdingOverBaseline = BenchmarkMetric.custom("1,000 held / none (%)")
    /// The footprint of the appexd holding 1,000 less that of the one holding none.
    static let footprintGrowth = BenchmarkMetric.custom("appexd's footprint, 1,000 held − none (KiB)")
}

/// A new client served by `home`'s appexd, in µs.
func newClient(_ home: RuntimeHome) async throws -> Int {
    let start = ProcessProbe.now()
    let host = try await RawHost.connect(home: home.home)
    defer { host.close() }
    try await host.ping()
    return Int(ProcessProbe.now() - start) / 1000
}

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "A new client while appexd holds 1,000 greeted idle connections, and while it holds none: issue 39's goal (≤ 5 ms, ≤ 10 MiB)",
        configuration: .init(metrics: [.newClientHolding, .newClientBaseline, .holdingOverBaseline, .footprintGrowth], timeUnits: .microseconds,
                             units: [.newClientHolding: .count, .newClientBaseline: .count, .holdingOverBaseline: .count, .footprintGrowth: .count],
                             warmupIterations: 5, maxDuration: .seconds(10), maxIterations: 1_000)
    ) { benchmark in
        var took: [Bool: Int] = [:]
        for held in benchmark.currentIteration % 2 == 0 ? [true, false] : [false, true] {
            took[held] = try await newClient(held ? holding! : baseline!)
        }
        benchmark.measurement(.newClientHolding, took[true]!)
        benchmark.measurement(.newClientBaseline, took[false]!)
        benchmark.measurement(.holdingOverBaseline, took[true]! * 100 / max(1, took[false]!))
        guard let held = ProcessMemory.footprint(of: [daemons.holding]), let none = ProcessMemory.footprint(of: [daemons.baseline]) else {
            throw BenchmarkFailure("an appexd's footprint can't be read")
        }
        benchmark.measurement(.footprintGrowth, max(0, Int(held) - Int(none)) / 1024)
    } setup: {
        holding = try RuntimeHome()
        baseline = try RuntimeHome()
        daemons = (try await holding!.daemonPID(), try await baseline!.daemonPID())
        // What appexd makes once for any client, made in both before anything is compared.
        _ = try await newClient(holding!)
        _ = try await newClient(baseline!)
        let clients = try BuiltProducts.executable("BenchIdleClients").path
        for _ in 0..<8 {
            let holder = try ChildProcess(clients, arguments: [holding!.home.daemonSocketURL.path, "125"], piped: true)
            holders.append(holder)
            guard holder.readLine() == "ready" else { throw BenchmarkFailure("BenchIdleClients \(holder.pid) did not open its connections") }
        }
    } teardown: {
        for holder in holders { _ = try? holder.wait() }
        holders = []
        await holding?.stop()
        await baseline?.stop()
        holding = nil
        baseline = nil
    }
}
