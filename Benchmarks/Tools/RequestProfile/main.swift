// Not a benchmark: runs many warm requests to the benchmark extension and prints, per
// request, the wall-clock time and the CPU time each process spent (host, appexd, extension),
// which contention on a shared machine inflates far less than latency. Run it under
// `perf record -g` to see where that CPU time goes (perf follows appexd and the extension,
// which this process starts).
//
//   swift run -c release RequestProfile [host|raw|cold|cold-raw] [COUNT] [conform]
//
// `host` goes through AppexHost (`NSExtension.request`); `raw` sends the same messages on raw
// connections (RawHost): BeginRequest, the session's round trip, EndRequest. `cold` makes
// every request start a new extension process (as the ColdStart benchmark does) and prints
// the median times instead. `cold-raw` does the same on raw connections, a new one per
// request, and also times appexd's answer, which it sends once it has spawned the process.
// `conform` makes the extension check its attachment's type first (loading the type table).
import AppexBenchmarkSupport
import AppexHost
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "host"
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000
let content = arguments.dropFirst(2).first
guard ["host", "raw", "cold", "cold-raw"].contains(mode) else {
    FileHandle.standardError.write(Data("usage: RequestProfile [host|raw|cold|cold-raw] [COUNT] [conform]\n".utf8))
    exit(64)
}

let runtime = try RuntimeHome(idleGraceMilliseconds: mode.hasPrefix("cold") ? 0 : nil)
let bench = try await runtime.benchExtension()
let daemon = try await runtime.daemonPID()
let raw = mode == "raw" ? try await RawHost.connect(home: runtime.home) : nil

/// One request, the way `mode` says; returns the extension's pid.
func request() async throws -> Int32 {
    guard let raw else { return try BenchReply(await bench.request(withInputItems: BenchItems.text())).pid }
    let requestID = UUID()
    try await raw.begin(requestID)
    let reply = try await raw.roundTrip(requestID)
    try raw.end(requestID)
    return reply.pid
}

/// The median of nanosecond figures, in milliseconds.
func median(_ values: [UInt64]) -> String {
    String(format: "%.2f", Double(values.sorted()[values.count / 2]) / 1e6)
}

if mode == "cold-raw" {
    var started: [UInt64] = []
    var toMain: [UInt64] = []
    var toBegin: [UInt64] = []
    var last: Int32?
    for _ in 0..<min(count, 1_000) {
        if let last { try ProcessProbe.waitUntilGone(last) }
        let host = try await RawHost.connect(home: runtime.home)
        let requestID = UUID()
        let start = ProcessProbe.now()
        try await host.begin(requestID)
        started.append(ProcessProbe.now() - start)
        let reply = try await host.roundTrip(requestID)
        toMain.append(reply.mainStarted - start)
        toBegin.append(reply.began - start)
        host.close()  // the session closes, and the extension ends
        last = reply.pid
    }
    print("\(started.count) cold requests on raw connections, p50: \(median(started)) ms to appexd's RequestStarted (spawned), \(median(toMain)) ms to the extension's main, \(median(toBegin)) ms to beginRequest")
    await runtime.stop()
    exit(0)
}

if mode == "cold" {
    var total: [UInt64] = []
    var toBegin: [UInt64] = []
    var toMain: [UInt64] = []
    var last: Int32?
    for _ in 0..<min(count, 1_000) {
        if let last { try ProcessProbe.waitUntilGone(last) }
        let start = ProcessProbe.now()
        let reply = try BenchReply(await bench.request(withInputItems: BenchItems.text(content)))
        total.append(ProcessProbe.now() - start)
        toBegin.append(reply.began - start)
        toMain.append(reply.mainStarted - start)
        last = reply.pid
    }
    print("\(total.count) cold requests, p50: \(median(toMain)) ms to the extension's main, \(median(toBegin)) ms to beginRequest, \(median(total)) ms to the outcome")
    await runtime.stop()
    exit(0)
}

let extensionPID = try await request()
for _ in 0..<1_000 { _ = try await request() }  // warm up
let processes = [("host", getpid()), ("appexd", daemon), ("extension", extensionPID)]
let before = processes.map { ProcessProbe.cpuMicroseconds(of: $0.1) ?? 0 }
let switchesBefore = processes.map { ProcessProbe.voluntarySwitches(of: $0.1) }
let start = ProcessProbe.now()
for _ in 0..<count { _ = try await request() }
let wall = Double(ProcessProbe.now() - start) / 1000 / Double(count)
let after = processes.map { ProcessProbe.cpuMicroseconds(of: $0.1) ?? 0 }
let switchesAfter = processes.map { ProcessProbe.voluntarySwitches(of: $0.1) }

print("\(count) warm requests (\(mode)): \(String(format: "%.1f", wall)) µs wall-clock each, on average")
var total = 0.0
for (index, (name, pid)) in processes.enumerated() {
    let cpu = Double(after[index] - before[index]) / Double(count)
    let switches = Double(switchesAfter[index] - switchesBefore[index]) / Double(count)
    total += cpu
    print("  \(name) (pid \(pid)): \(String(format: "%.1f", cpu)) µs CPU and \(String(format: "%.1f", switches)) waits (voluntary context switches) each")
}
print("  all three: \(String(format: "%.1f", total)) µs CPU each")
raw?.close()
await runtime.stop()
