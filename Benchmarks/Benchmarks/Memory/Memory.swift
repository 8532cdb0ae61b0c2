import AppexBenchmarkSupport
import AppexHost
import Benchmark
import Foundation

// Resident memory (VmRSS from /proc/PID/status, its parts, and PSS), in KiB: the benchmark
// extension's process after it answered a request, appexd idle after serving one, and the
// baseline, a trivial Swift program that links Foundation, built with the static stdlib like
// the extension.
// Wall-clock time means nothing here; each iteration reads one figure.

nonisolated(unsafe) var runtime: RuntimeHome?
nonisolated(unsafe) var bench: NSExtension!
nonisolated(unsafe) var daemonPID: Int32 = 0
nonisolated(unsafe) var trivial = ""

/// VmRSS, its anonymous and file-backed parts, as /proc/PID/status names them, and the
/// proportional set size (file pages shared with other processes count for a share).
let fields = ["VmRSS", "RssAnon", "RssFile", "Pss"]
let metrics = fields.map { BenchmarkMetric.custom("\($0) (KiB)") }

func record(_ benchmark: Benchmark, pid: Int32) throws {
    guard let memory = ProcessProbe.memoryKiB(of: pid) else { throw BenchmarkFailure("process \(pid) is gone") }
    for (field, metric) in zip(fields, metrics) {
        benchmark.measurement(metric, memory[field] ?? 0)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: metrics,
        units: Dictionary(uniqueKeysWithValues: metrics.map { ($0, .count) }),
        warmupIterations: 1,
        maxDuration: .seconds(5),
        maxIterations: 100
    )

    Benchmark("Memory: trivial extension process after a request") { benchmark in
        _ = try BenchReply(await bench.request(withInputItems: BenchItems.text()))
        guard let program = try await runtime!.extensionProgramIDs().first else { throw BenchmarkFailure("no extension process") }
        try record(benchmark, pid: program)
    } setup: {
        runtime = try RuntimeHome()
        bench = try await runtime!.benchExtension()
    } teardown: {
        bench = nil
        await runtime?.stop()
        runtime = nil
    }

    // Issue 39's goal: PSS ≤ 3 MiB. The launcher's pages the child hasn't written stay shared
    // with it, so they count for a half each.
    Benchmark("Memory: trivial extension forked from the launcher, linked to the shared AppexKit, after a request") { benchmark in
        let reply = try BenchReply(await bench.request(withInputItems: BenchItems.text("executable")))
        guard reply.extra.hasSuffix("/appex-launcher") else { throw BenchmarkFailure("the extension was not forked from the launcher: it runs \(reply.extra)") }
        guard let program = try await runtime!.extensionProgramIDs().first else { throw BenchmarkFailure("no extension process") }
        try record(benchmark, pid: program)
    } setup: {
        runtime = try RuntimeHome(sharedRuntime: true)
        bench = try await runtime!.benchExtension()
        try await runtime!.waitForLauncher()
    } teardown: {
        bench = nil
        await runtime?.stop()
        runtime = nil
    }

    Benchmark("Memory: idle appexd, after serving a request") { benchmark in
        try record(benchmark, pid: daemonPID)
    } setup: {
        runtime = try RuntimeHome(idleGraceMilliseconds: 0)
        bench = try await runtime!.benchExtension()
        _ = try BenchReply(await bench.request(withInputItems: BenchItems.text()))
        try await runtime!.waitUntilNoExtensionProcess()
        daemonPID = try await runtime!.daemonPID()
    } teardown: {
        bench = nil
        await runtime?.stop()
        runtime = nil
    }

    Benchmark("Memory baseline: trivial static Swift+Foundation program") { benchmark in
        let child = try ChildProcess(trivial, arguments: ["wait"], piped: true)
        guard child.readLine() == "ready" else { throw BenchmarkFailure("the baseline program did not start") }
        try record(benchmark, pid: child.pid)
        _ = try child.wait()
    } setup: {
        trivial = try BuiltProducts.executable("BenchTrivial").path
    }
}
