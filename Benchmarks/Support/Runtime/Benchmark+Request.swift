public import AppexHost
public import AppexItems
public import Benchmark

extension BenchmarkMetric {
    /// From the host's request (or the baseline's spawn) to the process's top-level code
    /// starting, by its stamp: for a cold start, appexd's part, fork and exec, the dynamic
    /// loader and the Swift runtime's start-up.
    public static let toMain = BenchmarkMetric.custom("begin → main (µs)")
    /// From the host's request to the extension's `beginRequest`, by the extension's stamp.
    public static let toBeginRequest = BenchmarkMetric.custom("begin → beginRequest (µs)")
    /// From the extension's `beginRequest` to the outcome in the host.
    public static let afterBeginRequest = BenchmarkMetric.custom("beginRequest → outcome (µs)")
}

extension Benchmark {
    /// Runs one request to the benchmark extension, measured, and records where its time
    /// went: ``BenchmarkMetric/toBeginRequest`` and ``BenchmarkMetric/afterBeginRequest``
    /// (both CLOCK_MONOTONIC, which the two processes share), and ``BenchmarkMetric/toMain``
    /// when `cold`.
    public func measureRequest(_ bench: NSExtension, items: [NSExtensionItem], cold: Bool = false) async throws -> BenchReply {
        let start = ProcessProbe.now()
        startMeasurement()
        let outcome = try await bench.request(withInputItems: items)
        stopMeasurement()
        let end = ProcessProbe.now()
        let reply = try BenchReply(outcome)
        measurement(.toBeginRequest, Int(reply.began - start) / 1000)
        measurement(.afterBeginRequest, Int(end - reply.began) / 1000)
        if cold {
            guard reply.mainStarted > start else { throw BenchmarkFailure("process \(reply.pid) was already running: the start was not cold") }
            measurement(.toMain, Int(reply.mainStarted - start) / 1000)
        }
        return reply
    }
}
