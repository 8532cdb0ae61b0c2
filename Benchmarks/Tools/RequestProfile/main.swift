// Not a benchmark: runs many requests to the benchmark extension and prints where their time
// goes. For warm requests, per request, the wall-clock time and the CPU time and waits
// (voluntary context switches) of each process (host, appexd, extension), which contention
// on a shared machine inflates far less than latency, beside the socketpair ping-pong's in
// the same run (under `taskset -c 0`, everything runs on one CPU); for cold ones, the
// median times to the extension's main, to its beginRequest and to the outcome. Run it
// under `perf record -g` to see where the CPU time goes (perf follows appexd and the
// extension, which this process starts).
//
//   swift run -c release RequestProfile [host|raw|cold|cold-raw|cold-forked|cold-forked-raw] [COUNT] [conform]
//
// `host` goes through AppexHost (`NSExtension.request`); `raw` sends the same messages on raw
// connections (RawHost): BeginRequest, the session's round trip, EndRequest. `cold` makes
// every request start a new extension process, as the ColdStart benchmark does. `cold-raw`
// does that on raw connections, a new one per request, and also times appexd's answer, which
// it sends once it has spawned the process. `conform` (cold modes) makes the extension check
// its attachment's type first, which loads the type table. `cold-forked` and
// `cold-forked-raw` do the same with the extension linked to the shared runtime, which
// appexd forks from its launcher (docs/zygote.md); APPEX_PROFILE_PAUSE=SECONDS then waits
// that long once the launcher is ready, to attach `strace -f -ttt` or `perf` to it.
import AppexBenchmarkSupport
import AppexHost
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "host"
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000
let content = arguments.dropFirst(2).first
guard ["host", "raw", "cold", "cold-raw", "cold-forked", "cold-forked-raw"].contains(mode) else {
    FileHandle.standardError.write(Data("usage: RequestProfile [host|raw|cold|cold-raw|cold-forked|cold-forked-raw] [COUNT] [conform]\n".utf8))
    exit(64)
}

/// The median of nanosecond figures, in milliseconds.
func median(_ values: [UInt64]) -> String {
    String(format: "%.2f", Double(values.sorted()[values.count / 2]) / 1e6)
}

/// One cold request through AppexHost, once the last one's process is gone: the times (ns)
/// to the outcome, to beginRequest and to the extension's main, and its pid.
func coldRequest(_ bench: NSExtension, in runtime: RuntimeHome) async throws -> (total: UInt64, toBegin: UInt64, toMain: UInt64, pid: Int32) {
    try await runtime.waitUntilNoExtensionProcess()
    let start = ProcessProbe.now()
    let outcome = try await bench.request(withInputItems: BenchItems.text(content))
    let end = ProcessProbe.now()
    let reply = try BenchReply(outcome)
    return (end - start, reply.began - start, reply.mainStarted - start, reply.pid)
}

/// Cold requests through AppexHost; returns the report.
func cold(_ runtime: RuntimeHome) async throws -> String {
    let bench = try await runtime.benchExtension()
    var samples: [(total: UInt64, toBegin: UInt64, toMain: UInt64, pid: Int32)] = []
    for _ in 0..<min(count, 1_000) {
        samples.append(try await coldRequest(bench, in: runtime))
    }
    return "\(samples.count) cold requests, p50: \(median(samples.map(\.toMain))) ms to the extension's main, "
        + "\(median(samples.map(\.toBegin))) ms to beginRequest, \(median(samples.map(\.total))) ms to the outcome"
}

/// Cold requests on raw connections, a new one each; returns the report.
func coldRaw(_ runtime: RuntimeHome) async throws -> String {
    _ = try await runtime.daemonPID()
    var started: [UInt64] = []
    var toMain: [UInt64] = []
    var toBegin: [UInt64] = []
    for _ in 0..<min(count, 1_000) {
        try await runtime.waitUntilNoExtensionProcess()
        let host = try await RawHost.connect(home: runtime.home)
        let requestID = UUID()
        let start = ProcessProbe.now()
        try await host.begin(requestID)
        started.append(ProcessProbe.now() - start)
        let reply = try await host.roundTrip(requestID)
        toMain.append(reply.mainStarted - start)
        toBegin.append(reply.began - start)
        host.close()  // the session closes, and the extension ends
    }
    return "\(started.count) cold requests on raw connections, p50: \(median(started)) ms to appexd's RequestStarted (spawned), "
        + "\(median(toMain)) ms to the extension's main, \(median(toBegin)) ms to beginRequest"
}

/// Warm requests, through AppexHost or raw connections; returns the report.
func warm(_ runtime: RuntimeHome) async throws -> String {
    let bench = try await runtime.benchExtension()
    let daemon = try await runtime.daemonPID()
    let raw = mode == "raw" ? try await RawHost.connect(home: runtime.home) : nil
    defer { raw?.close() }
    /// One request; returns the extension's pid.
    func request() async throws -> Int32 {
        guard let raw else { return try BenchReply(await bench.request(withInputItems: BenchItems.text())).pid }
        let requestID = UUID()
        try await raw.begin(requestID)
        let reply = try await raw.roundTrip(requestID)
        try raw.end(requestID)
        return reply.pid
    }
    _ = try await request()
    for _ in 0..<1_000 { _ = try await request() }  // warm up
    // The pid the extension reports is its pid namespace's; appexd knows the host's.
    guard let extensionPID = try await runtime.extensionProgramIDs().first else { throw BenchmarkFailure("appexd lists no extension process") }
    let processes = [("host", getpid()), ("appexd", daemon), ("extension", extensionPID)]
    let cpuBefore = processes.map { ProcessProbe.cpuMicroseconds(of: $0.1) ?? 0 }
    let waitsBefore = processes.map { ProcessProbe.voluntarySwitches(of: $0.1) }
    let start = ProcessProbe.now()
    for _ in 0..<count { _ = try await request() }
    let wall = Double(ProcessProbe.now() - start) / 1000 / Double(count)
    let cpuAfter = processes.map { ProcessProbe.cpuMicroseconds(of: $0.1) ?? 0 }
    let waitsAfter = processes.map { ProcessProbe.voluntarySwitches(of: $0.1) }
    var lines = ["\(count) warm requests (\(mode)): \(String(format: "%.1f", wall)) µs wall-clock each, on average"]
    var total = 0.0
    for (index, (name, pid)) in processes.enumerated() {
        let cpu = Double(cpuAfter[index] - cpuBefore[index]) / Double(count)
        let waits = Double(waitsAfter[index] - waitsBefore[index]) / Double(count)
        total += cpu
        lines.append("  \(name) (pid \(pid)): \(String(format: "%.1f", cpu)) µs CPU and \(String(format: "%.1f", waits)) waits (voluntary context switches) each")
    }
    lines.append("  all three: \(String(format: "%.1f", total)) µs CPU each")
    let baseline = pingPong()
    lines.append("baseline, the same run: socketpair ping-pong, \(String(format: "%.1f", baseline.wall)) µs wall-clock and "
        + "\(String(format: "%.1f", baseline.cpu)) µs CPU each; the request costs \(String(format: "%.1f", total / baseline.cpu))× its CPU "
        + "and \(String(format: "%.1f", wall / baseline.wall))× its wall-clock")
    return lines.joined(separator: "\n")
}

/// The baseline: `count` round trips of the ping-pong (both its threads are in this process);
/// the wall-clock and CPU time of each, in microseconds.
func pingPong() -> (wall: Double, cpu: Double) {
    guard let pingPong = try? PingPong() else { return (.nan, .nan) }
    defer { pingPong.close() }
    for _ in 0..<1_000 { pingPong.bounce() }  // warm up
    let cpuBefore = ProcessProbe.cpuMicroseconds(of: getpid()) ?? 0
    let start = ProcessProbe.now()
    for _ in 0..<count { pingPong.bounce() }
    let wall = Double(ProcessProbe.now() - start) / 1000 / Double(count)
    let cpu = Double((ProcessProbe.cpuMicroseconds(of: getpid()) ?? 0) - cpuBefore) / Double(count)
    return (wall, cpu)
}

// The home is a local of this block, so it is removed when the block ends, however it ends.
do {
    let forked = mode.hasPrefix("cold-forked")
    let runtime = try RuntimeHome(idleGraceMilliseconds: mode.hasPrefix("cold") ? 0 : nil, sharedRuntime: forked)
    let report: Result<String, any Error>
    do {
        if forked {
            _ = try await runtime.benchExtension()
            try await runtime.waitForLauncher()
            if let pause = ProcessInfo.processInfo.environment["APPEX_PROFILE_PAUSE"].flatMap(Double.init) {
                FileHandle.standardError.write(Data("the launcher is ready; waiting \(pause) s\n".utf8))
                try await Task.sleep(for: .seconds(pause))
            }
        }
        switch mode {
        case "cold", "cold-forked": report = .success(try await cold(runtime))
        case "cold-raw", "cold-forked-raw": report = .success(try await coldRaw(runtime))
        default: report = .success(try await warm(runtime))
        }
    } catch {
        report = .failure(error)
    }
    await runtime.stop()
    print(try report.get())
}
