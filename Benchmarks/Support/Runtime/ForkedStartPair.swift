import AppexHost
public import Benchmark

extension BenchmarkMetric {
    /// A cold request, request → `beginRequest`, to an extension appexd forks from its launcher.
    public static let forked = BenchmarkMetric.custom("forked: begin → beginRequest (µs)")
    /// The same request, to the extension's top-level code: what the fork and load take.
    public static let forkedToMain = BenchmarkMetric.custom("forked: begin → main (µs)")
    /// In the same iteration, `posix_spawn` + `waitpid` of the static baseline program.
    public static let staticSpawn = BenchmarkMetric.custom("static program: spawn → exit (µs)")
    /// The first over the second, in percent: issue 39's goal is 50 or less.
    public static let forkedOverSpawn = BenchmarkMetric.custom("forked / static spawn (%)")
}

/// Issue 39's cold-start goal, measured as a pair: a cold request to an extension that appexd
/// forks from its launcher, and the spawn of a static Swift program (`BenchTrivial`), in turn
/// in each iteration, so that a shared machine's noise falls on both alike.
public final class ForkedStartPair: @unchecked Sendable {
    // Unchecked: the benchmark harness runs one iteration at a time, and only its setup and
    // teardown change these.
    private let runtime: RuntimeHome
    private let bench: NSExtension
    private let trivial: String

    /// A runtime whose extension is built against the shared runtime, checked to be forked
    /// from the launcher rather than spawned.
    public init() async throws {
        trivial = try BuiltProducts.executable("BenchTrivial").path
        runtime = try RuntimeHome(idleGraceMilliseconds: 0, sharedRuntime: true)
        bench = try await runtime.benchExtension()
        try await runtime.waitForLauncher()
        let reply = try BenchReply(try await bench.request(withInputItems: BenchItems.text("executable")))
        guard reply.extra.hasSuffix("/appex-launcher") else {
            throw BenchmarkFailure("the extension was not forked from the launcher: it runs \(reply.extra)")
        }
    }

    /// One iteration: both starts, the first alternating with `benchmark`'s iteration, recorded
    /// as ``BenchmarkMetric/forked``, ``BenchmarkMetric/forkedToMain``,
    /// ``BenchmarkMetric/staticSpawn`` and ``BenchmarkMetric/forkedOverSpawn``, whichever
    /// `benchmark` measures.
    public func measure(_ benchmark: Benchmark) async throws {
        let pair = try await starts(launcherFirst: benchmark.currentIteration % 2 == 0)
        benchmark.measurement(.forked, pair.forked)
        benchmark.measurement(.forkedToMain, pair.toMain)
        benchmark.measurement(.staticSpawn, pair.spawned)
        benchmark.measurement(.forkedOverSpawn, pair.forked * 100 / max(1, pair.spawned))
    }

    /// One iteration of `count` pairs, recording only ``BenchmarkMetric/forkedOverSpawn``: the
    /// fastest forked start over the fastest spawn. A busy machine only ever adds time, so
    /// the fastest of a few is steadier than any one, which a check against a recorded figure
    /// needs.
    public func measureFastest(of count: Int, _ benchmark: Benchmark) async throws {
        var forked = Int.max
        var spawned = Int.max
        for index in 0..<count {
            let pair = try await starts(launcherFirst: index % 2 == 0)
            forked = min(forked, pair.forked)
            spawned = min(spawned, pair.spawned)
        }
        benchmark.measurement(.forkedOverSpawn, forked * 100 / max(1, spawned))
    }

    /// Both starts, one after the other, in µs: the cold request to `beginRequest` (and to
    /// the extension's top-level code), and the baseline's spawn to its exit.
    private func starts(launcherFirst: Bool) async throws -> (forked: Int, toMain: Int, spawned: Int) {
        var forked = 0
        var toMain = 0
        var spawned = 0
        for launcher in launcherFirst ? [true, false] : [false, true] {
            if launcher {
                try await runtime.waitUntilNoExtensionProcess()
                let start = ProcessProbe.now()
                let reply = try BenchReply(try await bench.request(withInputItems: BenchItems.text(nil)))
                guard reply.mainStarted > start else { throw BenchmarkFailure("process \(reply.pid) was already running: the start was not cold") }
                forked = Int(reply.began - start) / 1000
                toMain = Int(reply.mainStarted - start) / 1000
            } else {
                let start = ProcessProbe.now()
                let child = try ChildProcess(trivial, arguments: ["stamp"], piped: true)
                _ = child.readLine()
                let status = try child.wait()
                guard status == 0 else { throw BenchmarkFailure("the baseline program exited with status \(status)") }
                spawned = Int(ProcessProbe.now() - start) / 1000
            }
        }
        return (forked, toMain, spawned)
    }

    /// Stops appexd and removes the runtime's folder.
    public func stop() async {
        await runtime.stop()
    }
}
