import AppexTestServer
import AppexTransfers
import Benchmark
import Foundation
import FoundationNetworking

// In-process downloads: an Appex URLSession of an ephemeral configuration, whose session
// writes the body to the download's file itself (so that it can keep the bytes to resume
// from), against FoundationNetworking's own download task in the same process, from the same
// loopback server, in the same run. MB/s, 10^6 bytes; each download's file is removed.

nonisolated(unsafe) var server: LoopbackHTTPServer?

let throughput = BenchmarkMetric.custom("Throughput (MB/s)", polarity: .prefersLarger, useScalingFactor: false)
let size = 256 << 20

/// Runs `download` once per iteration and records its throughput.
func measure(_ benchmark: Benchmark, _ download: () async throws -> URL) async throws {
    for _ in benchmark.scaledIterations {
        let started = ContinuousClock.now
        let file = try await download()
        let elapsed = ContinuousClock.now - started
        let bytes = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        try? FileManager.default.removeItem(at: file)
        guard bytes == size else { throw BenchmarkFailure("the download held \(bytes) bytes, not \(size)") }
        let (seconds, attoseconds) = elapsed.components
        benchmark.measurement(throughput, Int(Double(size) / (Double(seconds) + Double(attoseconds) / 1e18) / 1e6))
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, throughput], warmupIterations: 1, maxDuration: .seconds(30), maxIterations: 10)

    Benchmark("In-process download: 256 MiB through an Appex URLSession", configuration: configuration) { benchmark in
        let session = AppexTransfers.URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        try await measure(benchmark) {
            guard let url = server?.url("/bytes/\(size)") else { throw BenchmarkFailure("no server") }
            return try await session.download(from: url).0
        }
    } setup: {
        server = try await LoopbackHTTPServer.start()
    } teardown: {
        await server?.stop()
        server = nil
    }

    Benchmark("In-process download baseline: 256 MiB through FoundationNetworking's URLSession", configuration: configuration) { benchmark in
        let session = FoundationNetworking.URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        try await measure(benchmark) {
            guard let url = server?.url("/bytes/\(size)") else { throw BenchmarkFailure("no server") }
            return try await withCheckedThrowingContinuation { continuation in
                session.downloadTask(with: url) { location, _, error in
                    // The file goes when this returns: it is moved, as Appex's async form moves its.
                    guard let location else { return continuation.resume(throwing: error ?? BenchmarkFailure("no file")) }
                    let kept = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
                    do {
                        try FileManager.default.moveItem(at: location, to: kept)
                        continuation.resume(returning: kept)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }.resume()
            }
        }
    } setup: {
        server = try await LoopbackHTTPServer.start()
    } teardown: {
        await server?.stop()
        server = nil
    }
}
