import AppexBenchmarkSupport
import AppexCore
import AppexRegistry
import AppexTesting
import Benchmark
import Foundation

// Installing one app with two share extensions (validate, copy into Applications/, register
// in one transaction, create containers) into a registry that already holds N apps.
// The baseline is the raw copy of the same bundle folder with FileManager.
// And issue 39's goal 5: installing the demo's four sample apps into a new registry, beside
// FileManager's copy of the same four folders in the same iteration.

/// What each benchmark process set up.
nonisolated(unsafe) var folder: TemporaryDirectory?
nonisolated(unsafe) var folderURL = URL(fileURLWithPath: "/nonexistent")
nonisolated(unsafe) var registry: Registry!
nonisolated(unsafe) var next = 0
/// The sample apps the demo installs, assembled once (built in the samples' package).
nonisolated(unsafe) var sampleApps: [URL] = []

extension BenchmarkMetric {
    /// Installing the four sample apps, one after another, into a registry that has none.
    static let installSamples = BenchmarkMetric.custom("install the four apps (µs)")
    /// FileManager's copy of the same four folders, in the same iteration.
    static let copySamples = BenchmarkMetric.custom("copy their folders (µs)")
    /// The first over the second, in percent.
    static let installOverCopy = BenchmarkMetric.custom("install / copy (%)")
}

/// One iteration of the demo's install: into a new registry, and FileManager's copy of the
/// same folders beside it, the first alternating so that a shared machine's noise falls on both.
func installSamplesAndCopy(_ benchmark: Benchmark) throws {
    let scratch = try TemporaryDirectory(prefix: "appex-bench-samples")
    let registry = try Registry(home: AppexHome(root: scratch.url.appendingPathComponent("home")))
    let copies = scratch.url.appendingPathComponent("copies")
    try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
    var took: [Bool: Int] = [:]
    for installing in benchmark.currentIteration % 2 == 0 ? [true, false] : [false, true] {
        let start = ProcessProbe.now()
        for app in sampleApps {
            if installing {
                _ = try registry.install(appAt: app)
            } else {
                try FileManager.default.copyItem(at: app, to: copies.appendingPathComponent(app.lastPathComponent))
            }
        }
        took[installing] = Int(ProcessProbe.now() - start) / 1000
    }
    benchmark.measurement(.installSamples, took[true]!)
    benchmark.measurement(.copySamples, took[false]!)
    benchmark.measurement(.installOverCopy, took[true]! * 100 / max(1, took[false]!))
}

/// The rules of the installed app: the 3-deep web-URL SUBQUERY and the most common dictionary.
func appRules() throws -> [PropertyListValue] {
    let subquery = try CorpusRules.predicate(repo: "mro/ShaarliOS", path: "swift4/Share/Info.plist")
    return [.string(subquery), ["NSExtensionActivationSupportsImageWithMaxCount": 4, "NSExtensionActivationSupportsWebURLWithMaxCount": 1]]
}

/// A fresh registry holding `count` apps of 2 extensions, installed with `Registry.install`.
func makeRegistry(apps count: Int) throws {
    let temporary = try TemporaryDirectory(prefix: "appex-bench-install")
    registry = try Registry(home: AppexHome(root: temporary.url.appendingPathComponent("home")))
    let rules = try appRules()
    for index in 0..<count {
        let url = try Fixtures.writeApp("com.example.installed\(index)", rules: rules, in: temporary.url.appendingPathComponent("scratch"))
        try registry.install(appAt: url)
        try FileManager.default.removeItem(at: url)
    }
    folderURL = temporary.url
    folder = consume temporary
}

/// Writes the next app to install (not measured) and returns its URL.
func nextApp() throws -> URL {
    next += 1
    return try Fixtures.writeApp("com.example.new\(next)", rules: try appRules(), in: folderURL.appendingPathComponent("source"))
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .instructions, .mallocCountTotal, .syscalls],
        warmupIterations: 3,
        maxDuration: .seconds(8),
        maxIterations: 300
    )

    for count in [0, 1_000] {
        Benchmark("Install one app (2 extensions), registry of \(count) apps") { benchmark in
            let url = try nextApp()
            benchmark.startMeasurement()
            blackHole(try registry.install(appAt: url))
            benchmark.stopMeasurement()
            try FileManager.default.removeItem(at: url)
        } setup: {
            try makeRegistry(apps: count)
        } teardown: {
            folder = nil
        }
    }

    Benchmark(
        "Install the demo's four sample apps into a new registry, and copy their folders, in turn: issue 39's goal (≤ 0.3 s)",
        configuration: .init(metrics: [.installSamples, .copySamples, .installOverCopy], timeUnits: .microseconds,
                             units: [.installSamples: .count, .copySamples: .count, .installOverCopy: .count],
                             warmupIterations: 2, maxDuration: .seconds(20), maxIterations: 50)
    ) { benchmark in
        try installSamplesAndCopy(benchmark)
    } setup: {
        sampleApps = try await AssembledSamples.apps()
    }

    Benchmark("Install baseline: FileManager.copyItem of the bundle") { benchmark in
        let url = try nextApp()
        let destination = folderURL.appendingPathComponent("copy")
        benchmark.startMeasurement()
        try FileManager.default.copyItem(at: url, to: destination)
        benchmark.stopMeasurement()
        try FileManager.default.removeItem(at: destination)
        try FileManager.default.removeItem(at: url)
    } setup: {
        let temporary = try TemporaryDirectory(prefix: "appex-bench-copy")
        folderURL = temporary.url
        folder = consume temporary
    } teardown: {
        folder = nil
    }
}
