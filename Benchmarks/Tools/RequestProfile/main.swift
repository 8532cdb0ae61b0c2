// Not a benchmark: runs many warm requests to the benchmark extension and prints, per
// request, the wall-clock time and the CPU time each process spent (host, appexd, extension),
// which contention on a shared machine inflates far less than latency. Run it under
// `perf record -g` to see where that CPU time goes (perf follows appexd and the extension,
// which this process starts).
//
//   swift run -c release RequestProfile [host|raw|cold] [COUNT]
//
// `host` goes through AppexHost (`NSExtension.request`); `raw` sends the same messages on raw
// connections (RawHost): BeginRequest, the session's round trip, EndRequest. `cold` makes
// every request start a new extension process (as the ColdStart benchmark does) and prints
// the median times instead.
import AppexBenchmarkSupport
import AppexHost
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "host"
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000
guard ["host", "raw", "cold"].contains(mode) else {
    FileHandle.standardError.write(Data("usage: RequestProfile [host|raw|cold] [COUNT]\n".utf8))
    exit(64)
}

let runtime = try RuntimeHome(idleGraceMilliseconds: mode == "cold" ? 0 : nil)
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

if mode == "cold" {
    var total: [UInt64] = []
    var toBegin: [UInt64] = []
    var last: Int32?
    for _ in 0..<min(count, 1_000) {
        if let last { try ProcessProbe.waitUntilGone(last) }
        let start = ProcessProbe.now()
        let reply = try BenchReply(await bench.request(withInputItems: BenchItems.text()))
        total.append(ProcessProbe.now() - start)
        toBegin.append(reply.began - start)
        last = reply.pid
    }
    let median = { (values: [UInt64]) in String(format: "%.2f", Double(values.sorted()[values.count / 2]) / 1e6) }
    print("\(total.count) cold requests: \(median(total)) ms p50 to the outcome, \(median(toBegin)) ms p50 to beginRequest")
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
