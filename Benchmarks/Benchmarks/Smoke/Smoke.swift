import AppexBenchmarkSupport
import AppexHost
import Benchmark

// The smoke CI runs (Support/benchmark-smoke): two figures of issue 39 that a change can
// double without any test noticing, each checked against Thresholds/ with room for a factor
// of two, so that ordinary noise doesn't fail it and a doubling does (BENCHMARKS.md, "The
// CI smoke", says what a sustained load beside it does to the ratio).
// Nothing here is a wall-clock threshold: one is a count, the other a ratio to a baseline
// measured in the same iteration.
//   - the host's mallocs per warm request (RoundTrip measures the same request at length);
//   - a forked cold start over the spawn of a static Swift program (ColdStart's pair), the
//     fastest of three of each in each iteration.

nonisolated(unsafe) var runtime: RuntimeHome?
nonisolated(unsafe) var bench: NSExtension!
nonisolated(unsafe) var forkedPair: ForkedStartPair?

// The names have no spaces: the benchmark tool writes a name's spaces in Thresholds/ as
// underscores, and looks for them as spaces.
let benchmarks: @Sendable () -> Void = {
    /// A factor of two past the recorded p90 is a regression; within it, noise.
    let factorOfTwo = BenchmarkThresholds(relative: [.p90: 100])

    Benchmark(
        "Host-mallocs-per-warm-request",
        configuration: .init(metrics: [.mallocCountTotal], warmupIterations: 100, maxDuration: .seconds(5), maxIterations: 2_000,
                             thresholds: [.mallocCountTotal: factorOfTwo])
    ) { benchmark in
        _ = try await benchmark.measureRequest(bench, items: BenchItems.text())
    } setup: {
        runtime = try RuntimeHome()
        bench = try await runtime!.warmBenchExtension()
    } teardown: {
        bench = nil
        await runtime?.stop()
        runtime = nil
    }

    Benchmark(
        "Forked-cold-start-over-static-spawn",
        configuration: .init(metrics: [.forkedOverSpawn], units: [.forkedOverSpawn: .count], warmupIterations: 3,
                             maxDuration: .seconds(10), maxIterations: 20, thresholds: [.forkedOverSpawn: factorOfTwo])
    ) { benchmark in
        try await forkedPair!.measureFastest(of: 3, benchmark)
    } setup: {
        forkedPair = try await ForkedStartPair()
    } teardown: {
        await forkedPair?.stop()
        forkedPair = nil
    }
}
