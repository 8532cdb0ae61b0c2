import AppexBenchmarkSupport
import AppexHost
import Benchmark
import Foundation

// A cold request: the extension process is not running, so appexd launches it. Measured in
// the host, from `request(withInputItems:)` to its outcome, with the time to the extension's
// `beginRequest` (stamped by the extension) as a second metric. appexd runs with
// APPEX_IDLE_GRACE_MS=0 and each iteration first waits (unmeasured) until the last
// iteration's process has exited, so every request starts a new one.
// The baseline is posix_spawn + waitpid of a trivial Swift program that links Foundation,
// built with the static stdlib like the extension.

nonisolated(unsafe) var runtime: RuntimeHome?
nonisolated(unsafe) var bench: NSExtension!
nonisolated(unsafe) var lastPID: Int32?
nonisolated(unsafe) var trivial = ""

/// One cold request whose extension does `content` (nil: answers at once; "conform": asks
/// whether its attachment conforms to public.text first).
func coldRequest(_ benchmark: Benchmark, content: String?) async throws {
    if let lastPID { try ProcessProbe.waitUntilGone(lastPID) }
    let reply = try await benchmark.measureRequest(bench, items: BenchItems.text(content))
    guard reply.pid != lastPID else { throw BenchmarkFailure("process \(reply.pid) served two requests: the start was not cold") }
    lastPID = reply.pid
}

func startRuntime() async throws {
    runtime = try RuntimeHome(idleGraceMilliseconds: 0)
    bench = try await runtime!.benchExtension()
}

func stopRuntime() async {
    bench = nil
    await runtime?.stop()
    runtime = nil
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .toBeginRequest, .afterBeginRequest],
        units: [.toBeginRequest: .count, .afterBeginRequest: .count],
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

    Benchmark("Cold start, the extension checks its attachment's type (loads the UTType table)") { benchmark in
        try await coldRequest(benchmark, content: "conform")
    } setup: {
        try await startRuntime()
    } teardown: {
        await stopRuntime()
    }

    Benchmark(
        "Cold start baseline: posix_spawn + waitpid, static Swift+Foundation program",
        configuration: .init(metrics: [.wallClock], warmupIterations: 3, maxDuration: .seconds(10), maxIterations: 500)
    ) { _ in
        let status = try ChildProcess.run(trivial)
        guard status == 0 else { throw BenchmarkFailure("the baseline program exited with status \(status)") }
    } setup: {
        trivial = try BuiltProducts.executable("BenchTrivial").path
    }
}
