import AppexBenchmarkSupport
import AppexCore
import AppexRegistry
import AppexSystem
import AppexTestServer
import Benchmark
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Background uploads, through the real parts: appexd (started by the host library) starts
// appex-transfers for a task in the registry, which streams the file to the loopback HTTP
// server in this process. The baseline is curl uploading the same file to the same server,
// in the same run.
//
// - Throughput: a 256 MiB file, from the task's creation until the registry says it
//   completed (the registry is read every 5 ms), against curl's whole run. MB/s, 10^6 bytes.
// - Memory: the resident memory of appexd and of appex-transfers, sampled every 20 ms while
//   a 1 GiB file uploads, against curl's uploading it. Flat means the peak is the start plus
//   little: the file is streamed, never loaded whole.

nonisolated(unsafe) var runtime: RuntimeHome?
nonisolated(unsafe) var registry: Registry?
nonisolated(unsafe) var server: LoopbackHTTPServer?
nonisolated(unsafe) var daemonPID: Int32 = 0
nonisolated(unsafe) var file = URL(fileURLWithPath: "/nonexistent")

let throughput = BenchmarkMetric.custom("Throughput (MB/s)", polarity: .prefersLarger, useScalingFactor: false)
let peakTransfers = BenchmarkMetric.custom("appex-transfers peak RSS (KiB)", useScalingFactor: false)
let growthTransfers = BenchmarkMetric.custom("appex-transfers RSS growth after 1/4 (KiB)", useScalingFactor: false)
let peakDaemon = BenchmarkMetric.custom("appexd peak RSS (KiB)", useScalingFactor: false)
let growthDaemon = BenchmarkMetric.custom("appexd RSS growth after 1/4 (KiB)", useScalingFactor: false)
let peakCurl = BenchmarkMetric.custom("curl peak RSS (KiB)", useScalingFactor: false)
let growthCurl = BenchmarkMetric.custom("curl RSS growth after 1/4 (KiB)", useScalingFactor: false)

/// Makes the home, starts its appexd and the server, and writes a file of `size` bytes to upload.
func start(fileSize size: Int) async throws {
    // appexd looks for waiting tasks every 100 ms, and appex-transfers stays between iterations.
    setenv("APPEX_TRANSFERS_CHECK_MS", "100", 1)
    setenv("APPEX_TRANSFERS_IDLE_MS", "600000", 1)
    let home = try RuntimeHome()
    runtime = home
    registry = try Registry(home: home.home)
    daemonPID = try await home.daemonPID()
    server = try await LoopbackHTTPServer.start()
    file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("appex-bench-upload-\(getpid())")
    try writeFile(file, size: size)
}

func stop() async {
    await server?.stop()
    server = nil
    registry = nil
    // appexd leaves appex-transfers running (transfers outlive appexd): end it too.
    if let home = runtime?.home, let transfers = ProcessLock.holder(at: home.transfersLockURL.path) { kill(transfers, SIGTERM) }
    await runtime?.stop()
    runtime = nil
    try? FileManager.default.removeItem(at: file)
}

/// Writes `size` bytes of varied data, 1 MiB at a time, and flushes them to disk.
func writeFile(_ url: URL, size: Int) throws {
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { throw BenchmarkFailure("open \(url.path): errno \(errno)") }
    defer { close(descriptor) }
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    for offset in stride(from: 0, to: size, by: chunk.count) {
        for index in chunk.indices { chunk[index] = UInt8(truncatingIfNeeded: (offset + index) &* 31 &+ offset >> 20) }
        let count = min(chunk.count, size - offset)
        guard write(descriptor, chunk, count) == count else { throw BenchmarkFailure("writing \(url.path): errno \(errno)") }
    }
    fsync(descriptor)
}

/// Hands an upload of the file to the registry, as appexd does for a session's task, tells
/// appex-transfers to look (appexd, at its next check, starts it if none runs), and returns
/// once the task has ended.
func uploadThroughAppex(to path: String) async throws -> TransferTask {
    guard let registry, let server, let runtime else { throw BenchmarkFailure("no home") }
    let task = try registry.addTransfer(TransferTask(
        appIdentifier: "com.example.bench", sessionIdentifier: "com.example.bench.uploads", groupIdentifier: "group.com.example.bench",
        owner: "com.example.bench", kind: .upload, request: .init(url: server.url(path), method: "POST"), bodyFile: file))
    if let poke = try? UnixSocket.connect(to: runtime.home.transfersSocketURL.path) { poke.close() }
    while true {
        guard let now = try registry.transfer(task.id) else { throw BenchmarkFailure("task \(task.id) is gone") }
        if now.state.isFinal {
            guard now.state == .completed, now.statusCode == 201 else { throw BenchmarkFailure("the upload ended \(now.state): \(now.error ?? "")") }
            return now
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// curl's path, or a failure that says how to get it.
func curl() throws -> String {
    for folder in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(folder)/curl") {
        return "\(folder)/curl"
    }
    throw BenchmarkFailure("curl is not installed, and the baseline needs it: sudo apt-get install curl")
}

/// Has curl upload the file to `path`, streamed from the file (`-T`), without waiting for a
/// `100 Continue`.
func uploadThroughCurl(to path: String) throws -> ChildProcess {
    guard let server else { throw BenchmarkFailure("no server") }
    return try ChildProcess(try curl(), arguments: ["-sS", "-o", "/dev/null", "-X", "POST", "-H", "Expect:", "-T", file.path,
                                                    server.url(path).absoluteString])
}

/// Times `upload` of a file of `size` bytes to `path`, checks the server holds all of it,
/// and records the throughput.
func measureUpload(_ benchmark: Benchmark, to path: String, size: Int, _ upload: () async throws -> Void) async throws {
    benchmark.startMeasurement()
    let started = ContinuousClock.now
    try await upload()
    let elapsed = ContinuousClock.now - started
    benchmark.stopMeasurement()
    try expectWhole(at: path, size: size)
    benchmark.measurement(throughput, Int(Double(size) / 1e6 / elapsed.seconds))
}

/// Waits for `child` to exit, looking every 5 ms as the upload through appex is looked for,
/// without holding a thread: the loopback server's handlers need the few there are.
func exitStatus(of child: ChildProcess) async throws -> Int32 {
    var status: Int32 = 0
    while true {
        let result = waitpid(child.pid, &status, WNOHANG)
        if result == child.pid { return status }
        guard result == 0 || errno == EINTR else { throw BenchmarkFailure("waitpid \(child.pid): errno \(errno)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// Checks that the server's latest upload to `path` holds the whole file.
func expectWhole(at path: String, size: Int) throws {
    guard let upload = server?.uploads(at: path).last, upload.bytes == Int64(size), upload.sha256 != nil else {
        throw BenchmarkFailure("the server does not hold the whole file: \(String(describing: server?.uploads(at: path).last))")
    }
}

/// Samples the resident memory (VmRSS, KiB) of each process `pids` names, every 20 ms,
/// until stopped.
final class MemorySampler: @unchecked Sendable {
    /// What one process's samples say.
    struct Summary {
        /// The first sample, when the upload started.
        var first: Int
        /// The most at any sample.
        var peak: Int
        /// The most after the first quarter of the upload's time, less the most before it:
        /// what the rest of the file added. Flat memory makes this about 0.
        var laterGrowth: Int
    }

    private let lock = NSLock()
    private var samples: [String: [(at: ContinuousClock.Instant, kib: Int)]] = [:]
    private var sampling: Task<Void, Never>?
    private let started = ContinuousClock.now

    init(_ pids: @escaping @Sendable () -> [String: Int32]) {
        sampling = Task.detached { [self] in
            while !Task.isCancelled {
                for (name, pid) in pids() {
                    guard let rss = ProcessProbe.memoryKiB(of: pid)?["VmRSS"] else { continue }
                    let now = ContinuousClock.now
                    lock.withLock { samples[name, default: []].append((now, rss)) }
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Stops sampling, and sums up each process's samples.
    func stop() async -> [String: Summary] {
        sampling?.cancel()
        await sampling?.value
        let ended = ContinuousClock.now
        let quarter = started + (ended - started) / 4
        return lock.withLock {
            samples.compactMapValues { series in
                guard let first = series.first?.kib else { return nil }
                let before = series.filter { $0.at <= quarter }.map(\.kib).max() ?? first
                let after = series.filter { $0.at > quarter }.map(\.kib).max() ?? before
                return Summary(first: first, peak: max(before, after), laterGrowth: after - before)
            }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let throughputSize = 256 << 20
    let memorySize = 1 << 30

    let throughputConfiguration = Benchmark.Configuration(metrics: [.wallClock, throughput], warmupIterations: 1, maxDuration: .seconds(30), maxIterations: 10)
    Benchmark("Transfers: 256 MiB upload through appex-transfers", configuration: throughputConfiguration) { benchmark in
        try await measureUpload(benchmark, to: "/upload/appex", size: throughputSize) {
            _ = try await uploadThroughAppex(to: "/upload/appex")
        }
    } setup: {
        try await start(fileSize: throughputSize)
    } teardown: {
        await stop()
    }

    Benchmark("Transfers baseline: 256 MiB upload through curl", configuration: throughputConfiguration) { benchmark in
        try await measureUpload(benchmark, to: "/upload/curl", size: throughputSize) {
            let status = try await exitStatus(of: uploadThroughCurl(to: "/upload/curl"))
            guard status == 0 else { throw BenchmarkFailure("curl ended with wait status \(status)") }
        }
    } setup: {
        try await start(fileSize: throughputSize)
    } teardown: {
        await stop()
    }

    let memoryConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, peakTransfers, growthTransfers, peakDaemon, growthDaemon], warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 5)
    Benchmark("Transfers: appexd and appex-transfers memory during a 1 GiB upload", configuration: memoryConfiguration) { benchmark in
        guard let home = runtime?.home else { throw BenchmarkFailure("no home") }
        let lock = home.transfersLockURL.path
        let daemon = daemonPID
        let sampler = MemorySampler { ["appexd": daemon].merging(ProcessLock.holder(at: lock).map { ["transfers": $0] } ?? [:]) { $1 } }
        _ = try await uploadThroughAppex(to: "/upload/appex")
        let memory = await sampler.stop()
        try expectWhole(at: "/upload/appex", size: memorySize)
        guard let transfers = memory["transfers"], let daemon = memory["appexd"] else { throw BenchmarkFailure("a process was not sampled: \(memory)") }
        benchmark.measurement(peakTransfers, transfers.peak)
        benchmark.measurement(growthTransfers, transfers.laterGrowth)
        benchmark.measurement(peakDaemon, daemon.peak)
        benchmark.measurement(growthDaemon, daemon.laterGrowth)
    } setup: {
        try await start(fileSize: memorySize)
    } teardown: {
        await stop()
    }

    Benchmark("Transfers baseline: curl memory during a 1 GiB upload",
              configuration: .init(metrics: [.wallClock, peakCurl, growthCurl], warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 5)) { benchmark in
        let child = try uploadThroughCurl(to: "/upload/curl")
        let pid = child.pid
        let sampler = MemorySampler { ["curl": pid] }
        let status = try await exitStatus(of: child)
        let memory = await sampler.stop()
        guard status == 0 else { throw BenchmarkFailure("curl ended with wait status \(status)") }
        try expectWhole(at: "/upload/curl", size: memorySize)
        guard let curl = memory["curl"] else { throw BenchmarkFailure("curl was not sampled") }
        benchmark.measurement(peakCurl, curl.peak)
        benchmark.measurement(growthCurl, curl.laterGrowth)
    } setup: {
        try await start(fileSize: memorySize)
    } teardown: {
        await stop()
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
