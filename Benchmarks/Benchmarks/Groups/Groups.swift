import AppexBenchmarkSupport
import AppexGroups
import AppexTesting
import Benchmark
import Foundation
import Synchronization

// Shared defaults (GroupDefaults) against what they replace.
// - Reads: `string(forKey:)` on a suite of 100 keys, against a lookup in a [String: Any]
//   of the same keys, in the same process.
// - Another process's write seen: a round trip with BenchGroupsEcho, which answers each
//   change of "ping" by setting "pong"; this process sets "ping" and waits for the change
//   notification that shows "pong" at the same value. A round trip is two crossings, each a
//   locked read-modify-write, a rename, a count bumped in the lock file, an inotify wake-up
//   and a reread. The baseline is a line sent to the same helper through a pipe and back.

nonisolated(unsafe) var defaults: GroupDefaults?
nonisolated(unsafe) var dictionary: [String: Any] = [:]
nonisolated(unsafe) var folder: TemporaryDirectory?
nonisolated(unsafe) var containerPath = ""
nonisolated(unsafe) var echo: ChildProcess?
nonisolated(unsafe) var observer: (any NSObjectProtocol)?
let pongs = Mutex<(wanted: Int, seen: DispatchSemaphore?)>((0, nil))
nonisolated(unsafe) var counter = 0
let suite = "group.com.example.bench"

func openSuite() throws -> GroupDefaults {
    let made = try TemporaryDirectory(prefix: "appex-bench-groups")
    let container = made.url
    containerPath = container.path
    folder = consume made
    guard let opened = GroupDefaults(suiteName: suite, container: container) else { throw BenchmarkFailure("GroupDefaults(suiteName:container:) gave nil") }
    return opened
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock], timeUnits: .nanoseconds, warmupIterations: 10,
                                           maxDuration: .seconds(5), maxIterations: 1_000_000)

    Benchmark("Read baseline: [String: Any] lookup of a string, 100 keys", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(dictionary["key\(index % 100)"] as? String)
        }
    } setup: {
        dictionary = Dictionary(uniqueKeysWithValues: (0..<100).map { ("key\($0)", "value \($0)") })
    }

    Benchmark("GroupDefaults read: string(forKey:), 100 keys", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(defaults!.string(forKey: "key\(index % 100)"))
        }
    } setup: {
        let opened = try openSuite()
        for index in 0..<100 { opened.set("value \(index)", forKey: "key\(index)") }
        defaults = opened
    } teardown: {
        defaults = nil
        folder = nil
    }

    Benchmark(
        "Round trip baseline: a line to another process through a pipe and back",
        configuration: .init(metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(10), maxIterations: 2_000)
    ) { benchmark in
        counter += 1
        echo!.writeLine("\(counter)")
        guard echo!.readLine() == "\(counter)" else { throw BenchmarkFailure("the echo answered something else") }
    } setup: {
        echo = try ChildProcess(try BuiltProducts.executable("BenchGroupsEcho").path, arguments: ["pipe"], piped: true)
        guard echo!.readLine() == "ready" else { throw BenchmarkFailure("the echo did not start") }
    } teardown: {
        _ = try? echo?.wait()
        echo = nil
    }

    Benchmark(
        "GroupDefaults round trip: a write seen by another process, its answer seen here",
        configuration: .init(metrics: [.wallClock], timeUnits: .microseconds, maxDuration: .seconds(10), maxIterations: 2_000)
    ) { benchmark in
        counter += 1
        let seen = DispatchSemaphore(value: 0)
        pongs.withLock { $0 = (counter, seen) }
        defaults!.set(counter, forKey: "ping")
        guard seen.wait(timeout: .now() + 5) == .success else { throw BenchmarkFailure("no pong within 5 s") }
    } setup: {
        let opened = try openSuite()
        defaults = opened
        echo = try ChildProcess(try BuiltProducts.executable("BenchGroupsEcho").path, arguments: [containerPath, suite], piped: true)
        guard echo!.readLine() == "ready" else { throw BenchmarkFailure("the echo did not start") }
        observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: opened, queue: nil) { _ in
            let pong = defaults?.integer(forKey: "pong") ?? -1
            pongs.withLock { state in
                if pong == state.wanted, let seen = state.seen {
                    state.seen = nil
                    seen.signal()
                }
            }
        }
    } teardown: {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        observer = nil
        _ = try? echo?.wait()
        echo = nil
        defaults = nil
        folder = nil
    }
}
