import AppexBenchmarkSupport
import AppexHost
import Benchmark
import Foundation

// A warm request: the extension process is already running, and answers at once. The whole
// round trip through the host API, its two halves on raw connections (the daemon's
// BeginRequest/EndRequest and the session with the extension), the IPC framework's own call,
// and the baseline: a raw ping-pong of a small message over a Unix socketpair.

/// What each benchmark process set up.
nonisolated(unsafe) var runtime: RuntimeHome?
nonisolated(unsafe) var bench: NSExtension!
nonisolated(unsafe) var raw: RawHost?

func startRuntime() async throws {
    runtime = try RuntimeHome()
    bench = try await runtime!.warmBenchExtension()
}

func startRawHost() async throws {
    runtime = try RuntimeHome()
    _ = try await runtime!.daemonPID()
    raw = try await RawHost.connect(home: runtime!.home)
    // Launches a process for this host only. The request is left open, so appexd doesn't end
    // the process as idle: the session benchmark's requests are the extension's business alone.
    let first = UUID()
    try await raw!.begin(first)
    _ = try await raw!.roundTrip(first)
}

func stopRuntime() async {
    raw?.close()
    raw = nil
    bench = nil
    await runtime?.stop()
    runtime = nil
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .syscalls],
        warmupIterations: 100,
        maxDuration: .seconds(5),
        maxIterations: 20_000
    )

    Benchmark(
        "Warm round trip: request(withInputItems:), one text item",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .syscalls, .toBeginRequest, .afterBeginRequest],
            units: [.toBeginRequest: .count, .afterBeginRequest: .count],
            warmupIterations: 100, maxDuration: .seconds(5), maxIterations: 20_000)
    ) { benchmark in
        _ = try await benchmark.measureRequest(bench, items: BenchItems.text())
    } setup: {
        try await startRuntime()
    } teardown: {
        await stopRuntime()
    }

    PingPong.registerBaseline("Warm round trip baseline: socketpair ping-pong, 64 bytes, two threads")

    Benchmark("Warm split: daemon BeginRequest → RequestStarted + EndRequest (raw connection)") { benchmark in
        let requestID = UUID()
        benchmark.startMeasurement()
        try await raw!.begin(requestID)
        try raw!.end(requestID)
        benchmark.stopMeasurement()
    } setup: {
        try await startRawHost()
    } teardown: {
        await stopRuntime()
    }

    Benchmark("Warm split: session ExtensionRequest → CompleteRequest + RequestAcknowledged (raw connection)") { benchmark in
        let requestID = UUID()
        benchmark.startMeasurement()
        _ = try await raw!.roundTrip(requestID)
        benchmark.stopMeasurement()
    } setup: {
        try await startRawHost()
    } teardown: {
        await stopRuntime()
    }

    Benchmark("Warm split: Ping → Pong with appexd (AppexIPC Connection.call)") { _ in
        try await raw!.ping()
    } setup: {
        try await startRawHost()
    } teardown: {
        await stopRuntime()
    }
}
