import AppexBenchmarkSupport
import AppexCore
import AppexRegistry
import Foundation

// A small driver for profilers (perf, valgrind --tool=callgrind): warm share queries over the
// 10,000-extension home, and the cost of each public step a query takes.
//
//   APPEX_BENCH_FIXTURES=/tmp/appex-profile swift run -c release QueryProfile [corpus|distinct] [queries]
//   swift run -c release QueryProfile distinct 200 --evaluate   (the rules alone, no home: seconds to set up)

let arguments = CommandLine.arguments
let variant = ShareHome.Variant(rawValue: arguments.count > 1 ? arguments[1] : "corpus") ?? .corpus
let queries = arguments.count > 2 ? Int(arguments[2]) ?? 200 : 200
let items = sharedItems(attachments: 1)

if arguments.contains("--rules") {
    // How many distinct rules each home holds, and of which kind.
    for variant in [ShareHome.Variant.corpus, .distinct] {
        let rules = try ShareHome.rules(variant)
        let distinct = Set(rules)
        let predicates = distinct.filter { $0.stringValue != nil }.count
        print("\(variant): \(rules.count) extensions, \(distinct.count) distinct rules (\(predicates) predicates)")
    }
    exit(0)
}

let clock = ContinuousClock()

if arguments.contains("--evaluate") {
    // The 10,000 rules compiled, then evaluated against the system's types: in a loop, one
    // rule at a time (the benchmark's baseline), and as one ActivationRuleSet, as a query does.
    let rules = try ShareHome.rules(variant).map { try ActivationRule.parse($0) }
    let context = ActivationContext(items: items, types: .system)
    func median(_ body: () -> Int) -> (Duration, Int) {
        var samples: [Duration] = []
        var matched = 0
        for _ in 0..<queries {
            let start = clock.now
            matched = body()
            samples.append(clock.now - start)
        }
        return (samples.sorted()[samples.count / 2], matched)
    }
    let kinds: [(String, [ActivationRule])] = [
        ("all", rules),
        ("predicates", rules.filter { if case .predicate = $0 { true } else { false } }),
        ("dictionaries", rules.filter { if case .dictionary = $0 { true } else { false } }),
    ]
    for (name, subset) in kinds {
        let (loop, matched) = median { subset.reduce(0) { $0 + ($1.matches(context) ? 1 : 0) } }
        let set = ActivationRuleSet(subset)
        let (together, agreed) = median { set.matches(context).reduce(0) { $0 + ($1 ? 1 : 0) } }
        precondition(agreed == matched, "the rule set and the loop disagree")
        print("\(name): \(subset.count) rules, \(matched) match; loop p50 \(loop), rule set p50 \(together)"
              + " (\(set.distinctComparisonCount) distinct comparisons)")
    }
    exit(0)
}

var started = clock.now
let registry = try Registry(home: try ShareHome.home(variant))
print("home ready in \(clock.now - started)")
started = clock.now
let offered = try registry.query(point: ShareHome.point, items: items)
print("first (cold) query: \(offered.count) of \(ShareHome.extensionCount) offered in \(clock.now - started)")

func median(_ body: () throws -> Void) rethrows -> Duration {
    var samples: [Duration] = []
    for _ in 0..<queries {
        let start = clock.now
        try body()
        samples.append(clock.now - start)
    }
    return samples.sorted()[samples.count / 2]
}

let types = try registry.typeGraph()
print("generation():            p50 \(try median { _ = try registry.generation() })")
print("typeGraph() (cached):    p50 \(try median { _ = try registry.typeGraph() })")
print("ActivationContext(...):  p50 \(median { _ = ActivationContext(items: items, types: types) })")
print("query (warm):            p50 \(try median { _ = try registry.query(point: ShareHome.point, items: items) })")

// What a query pays to hand back its result: copying the matching InstalledExtension values
// (each copy retains every string, URL, dictionary and array inside) and releasing them.
let installed = try registry.extensions(point: ShareHome.point)
let matchingCount = offered.count
print("MemoryLayout<InstalledExtension>.size = \(MemoryLayout<InstalledExtension>.size) bytes")
let copying = median {
    var result: [InstalledExtension] = []
    for (index, plugIn) in installed.enumerated() where index < matchingCount { result.append(plugIn) }
    withExtendedLifetime(result) {}
}
print("copy \(installed.count) values, keep \(matchingCount): p50 \(copying)")
let indexing = median {
    var result: [Int] = []
    for index in installed.indices where index < matchingCount { result.append(index) }
    withExtendedLifetime(result) {}
}
print("collect \(matchingCount) indices instead: p50 \(indexing)")
