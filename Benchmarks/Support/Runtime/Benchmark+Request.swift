public import AppexHost
public import AppexItems
public import Benchmark

extension BenchmarkMetric {
    /// From the host's request to the extension's `beginRequest`, by the extension's stamp.
    public static let toBeginRequest = BenchmarkMetric.custom("begin → beginRequest (µs)")
    /// From the extension's `beginRequest` to the outcome in the host.
    public static let afterBeginRequest = BenchmarkMetric.custom("beginRequest → outcome (µs)")
}

extension Benchmark {
    /// Runs one request to the benchmark extension, measured, and records where its time
    /// went: ``BenchmarkMetric/toBeginRequest`` and ``BenchmarkMetric/afterBeginRequest``
    /// (both CLOCK_MONOTONIC, which the two processes share).
    public func measureRequest(_ bench: NSExtension, items: [NSExtensionItem]) async throws -> BenchReply {
        let start = ProcessProbe.now()
        startMeasurement()
        let outcome = try await bench.request(withInputItems: items)
        stopMeasurement()
        let end = ProcessProbe.now()
        let reply = try BenchReply(outcome)
        measurement(.toBeginRequest, Int(reply.began - start) / 1000)
        measurement(.afterBeginRequest, Int(end - reply.began) / 1000)
        return reply
    }
}
