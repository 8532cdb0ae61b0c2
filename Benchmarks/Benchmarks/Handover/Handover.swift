import AppexBenchmarkSupport
import AppexHost
import Benchmark
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Handing a file over: a warm request whose one attachment is a file, as `public.data`, up to
// the extension reading its byte 0 (it loads the data representation, which arrives as a
// descriptor, reads the first byte and answers). A 1 GiB sparse file against a 1 KiB one:
// the handover should not depend on the size. Each file starts with the byte "A".

nonisolated(unsafe) var runtime: RuntimeHome?
nonisolated(unsafe) var bench: NSExtension!
nonisolated(unsafe) var file = URL(fileURLWithPath: "/nonexistent")

/// Writes `size` bytes at `url`: "A", then a hole up to the size (all of it written for a small file).
func writeFile(_ url: URL, size: Int) throws {
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { throw BenchmarkFailure("open \(url.path): errno \(errno)") }
    defer { close(descriptor) }
    let head = [UInt8](repeating: UInt8(ascii: "A"), count: size <= 1 << 20 ? size : 1)
    guard write(descriptor, head, head.count) == head.count, ftruncate(descriptor, off_t(size)) == 0 else {
        throw BenchmarkFailure("writing \(url.path): errno \(errno)")
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .syscalls],
        warmupIterations: 20,
        maxDuration: .seconds(5),
        maxIterations: 5_000
    )

    for (label, size) in [("1 KiB", 1 << 10), ("1 GiB sparse", 1 << 30)] {
        Benchmark("Handover: \(label) file attachment, to the extension reading byte 0") { benchmark in
            let items = BenchItems.file(file)
            benchmark.startMeasurement()
            let outcome = try await bench.request(withInputItems: items)
            benchmark.stopMeasurement()
            let reply = try BenchReply(outcome)
            guard reply.extra == "\(UInt8(ascii: "A"))" else { throw BenchmarkFailure("the extension read \(reply.extra), not byte 65") }
        } setup: {
            runtime = try RuntimeHome()
            file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appex-bench-handover-\(getpid())")
            try writeFile(file, size: size)
            bench = try await runtime!.warmBenchExtension()
        } teardown: {
            bench = nil
            await runtime?.stop()
            runtime = nil
            try? FileManager.default.removeItem(at: file)
        }
    }
}
