import AppexBenchmarkSupport
import AppexCore
import AppexRegistry
import Benchmark
import Foundation
import GRDB

// A share query over 10,000 installed extensions (budget: 2 ms p50), warm: the registry's
// point index is built by a first query in setup. The homes are installed with
// `Registry.install`, 2,500 apps of 4 share extensions, once per `swift package benchmark` run.

/// What a browser shares: one web URL, with some text.
let items = sharedItems(attachments: 1)

/// What each benchmark process set up.
nonisolated(unsafe) var registry: Registry!
nonisolated(unsafe) var types: UTTypeGraph!
nonisolated(unsafe) var compiled: [ActivationRule] = []
nonisolated(unsafe) var database: DatabasePool!
nonisolated(unsafe) var expectedMatches = 0

/// Opens the home of `variant` and runs one query, so what follows is warm.
func openRegistry(_ variant: ShareHome.Variant) throws {
    registry = try Registry(home: try ShareHome.home(variant))
    let offered = try registry.query(point: ShareHome.point, items: items)
    precondition(!offered.isEmpty, "the shared URL should be offered to some extension")
    expectedMatches = offered.count
}

/// Compiles every installed extension's rule into a plain array, one per extension, as a
/// host with no registry would keep them.
func compileRules(_ variant: ShareHome.Variant) throws {
    try openRegistry(variant)
    types = try registry.typeGraph()
    let installed = try registry.extensions(point: ShareHome.point)
    precondition(installed.count == ShareHome.extensionCount, "\(installed.count) extensions installed")
    compiled = try installed.map { try ActivationRule.parse($0.manifest.activationRule!) }
    precondition(loop() == expectedMatches, "the loop and the registry disagree")
}

/// The baseline: build the context as a query does, then test each rule in turn.
@inline(never)
func loop() -> Int {
    let context = ActivationContext(items: items, types: types)
    var matching: [Int] = []
    for (index, rule) in compiled.enumerated() where rule.matches(context) {
        matching.append(index)
    }
    return matching.count
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .instructions, .mallocCountTotal],
        warmupIterations: 5,
        maxDuration: .seconds(5),
        maxIterations: 2_000
    )

    for variant in [ShareHome.Variant.corpus, .distinct] {
        let label = variant == .corpus ? "corpus rules" : "10,000 distinct rules"

        Benchmark("Share query, 10,000 extensions, \(label)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try registry.query(point: ShareHome.point, items: items))
            }
        } setup: {
            try openRegistry(variant)
        }

        Benchmark("Share query baseline, \(label): array loop") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(loop())
            }
        } setup: {
            try compileRules(variant)
        }
    }

    Benchmark("Share query baseline: GRDB read of one row") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try database.read { try Int.fetchOne($0, sql: "SELECT value FROM generation WHERE id = 1") })
        }
    } setup: {
        // A pool on the registry's own WAL database, as `Registry` opens it; this is the read
        // each query makes to learn the registry's generation.
        database = try DatabasePool(path: try ShareHome.home(.corpus).registryURL.path)
    }
}
