import AppexBenchmarkSupport
import AppexHost
import Benchmark
import Foundation

// A cold request: the extension process is not running, so appexd launches it. Measured in
// the host, from `request(withInputItems:)` to its outcome, with the times to the extension's
// top-level code and to its `beginRequest` (stamped by the extension) as further metrics. appexd runs with
// APPEX_IDLE_GRACE_MS=0 and each iteration first waits (unmeasured) until the last
// iteration's process has exited, so every request starts a new one.
// What the sandbox adds to it: the same cold request to a second appexd with its sandbox off
// (APPEX_SANDBOX=off), the two in turn in each iteration, with the ratio of each pair. The baseline is posix_spawn + waitpid of a trivial Swift program that links Foundation,
// built with the static stdlib like the extension, which prints when its top-level code
// started (so its "begin → main" is the spawn's).

nonisolated(unsafe) var runtime: RuntimeHome?
nonisolated(unsafe) var bench: NSExtension!
nonisolated(unsafe) var trivial = ""
nonisolated(unsafe) var unsandboxedRuntime: RuntimeHome?
nonisolated(unsafe) var unsandboxedBench: NSExtension!

nonisolated(unsafe) var forkedPair: ForkedStartPair?

extension BenchmarkMetric {
    /// A cold request, request → outcome, to appexd as it runs, with the sandbox.
    static let sandboxed = BenchmarkMetric.custom("sandboxed (µs)")
    /// The same request in the same iteration to an appexd with the sandbox off.
    static let unsandboxed = BenchmarkMetric.custom("sandbox off (µs)")
    /// The first over the second, in percent: 130 is 1.3×.
    static let sandboxCost = BenchmarkMetric.custom("sandboxed / off (%)")
}

/// One cold request whose extension does `content` (nil: answers at once; "conform": asks
/// whether its attachment conforms to public.text first).
func coldRequest(_ benchmark: Benchmark, content: String?) async throws {
    // measureRequest checks the start was cold: the extension's main began after the request.
    try await runtime!.waitUntilNoExtensionProcess()
    _ = try await benchmark.measureRequest(bench, items: BenchItems.text(content), cold: true)
}

func startRuntime(sandboxOff: Bool = false) async throws {
    runtime = try RuntimeHome(idleGraceMilliseconds: 0, sandboxOff: sandboxOff)
    bench = try await runtime!.benchExtension()
}

func stopRuntime() async {
    bench = nil
    await runtime?.stop()
    runtime = nil
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .toMain, .toBeginRequest, .afterBeginRequest],
        timeUnits: .microseconds,
        units: [.toMain: .count, .toBeginRequest: .count, .afterBeginRequest: .count],
        warmupIterations: 3,
        maxDuration: .seconds(20),
        maxIterations: 200
    )

    Benchmark("Cold start: request(withInputItems:) to a new extension process") { benchmark in
        try await coldRequest(benchmark, content: nil)
    } setup: {
        try await startRuntime()
    } teardown: {
        await stopRuntime()
    }

    Benchmark(
        "Cold start, sandboxed and with the sandbox off (APPEX_SANDBOX=off) in turn: what the sandbox costs",
        configuration: .init(metrics: [.sandboxed, .unsandboxed, .sandboxCost], timeUnits: .microseconds,
                             units: [.sandboxed: .count, .unsandboxed: .count, .sandboxCost: .count], warmupIterations: 3,
                             maxDuration: .seconds(40), maxIterations: 200)
    ) { benchmark in
        // Each iteration makes one cold request to each appexd, in turn, the first one
        // alternating, so that the noise of a shared machine falls on both alike.
        let first = benchmark.currentIteration % 2 == 0
        var times: [Bool: Int] = [:]
        for sandboxed in [first, !first] {
            let (home, bench) = sandboxed ? (runtime!, bench!) : (unsandboxedRuntime!, unsandboxedBench!)
            try await home.waitUntilNoExtensionProcess()
            let start = ProcessProbe.now()
            let reply = try BenchReply(try await bench.request(withInputItems: BenchItems.text(nil)))
            let end = ProcessProbe.now()
            guard reply.mainStarted > start else { throw BenchmarkFailure("process \(reply.pid) was already running: the start was not cold") }
            times[sandboxed] = Int(end - start) / 1000
        }
        benchmark.measurement(.sandboxed, times[true]!)
        benchmark.measurement(.unsandboxed, times[false]!)
        benchmark.measurement(.sandboxCost, times[true]! * 100 / max(1, times[false]!))
    } setup: {
        try await startRuntime()
        unsandboxedRuntime = try RuntimeHome(idleGraceMilliseconds: 0, sandboxOff: true)
        unsandboxedBench = try await unsandboxedRuntime!.benchExtension()
    } teardown: {
        await stopRuntime()
        unsandboxedBench = nil
        await unsandboxedRuntime?.stop()
        unsandboxedRuntime = nil
    }

    Benchmark(
        "Cold start forked from appexd's launcher, and the spawn of a static Swift program, in turn: issue 39's goal (≤ 50%)",
        configuration: .init(metrics: [.forked, .forkedToMain, .staticSpawn, .forkedOverSpawn], timeUnits: .microseconds,
                             units: [.forked: .count, .forkedToMain: .count, .staticSpawn: .count, .forkedOverSpawn: .count], warmupIterations: 3,
                             maxDuration: .seconds(40), maxIterations: 200)
    ) { benchmark in
        try await forkedPair!.measure(benchmark)
    } setup: {
        forkedPair = try await ForkedStartPair()
    } teardown: {
        await forkedPair?.stop()
        forkedPair = nil
    }

    Benchmark("Cold start, the extension checks its attachment's type (loads the UTType table)") { benchmark in
        try await coldRequest(benchmark, content: "conform")
    } setup: {
        try await startRuntime()
    } teardown: {
        await stopRuntime()
    }

    Benchmark(
        "Cold start baseline: posix_spawn + waitpid, static Swift+Foundation program",
        configuration: .init(metrics: [.wallClock, .toMain], timeUnits: .microseconds, units: [.toMain: .count], warmupIterations: 3,
                             maxDuration: .seconds(10), maxIterations: 500)
    ) { benchmark in
        let start = ProcessProbe.now()
        let child = try ChildProcess(trivial, arguments: ["stamp"], piped: true)
        let stamp = UInt64(child.readLine()) ?? 0
        let status = try child.wait()
        benchmark.stopMeasurement()
        guard status == 0, stamp > start else { throw BenchmarkFailure("the baseline program exited with status \(status), stamp \(stamp)") }
        benchmark.measurement(.toMain, Int(stamp - start) / 1000)
    } setup: {
        trivial = try BuiltProducts.executable("BenchTrivial").path
    }
}
