import AppexBenchmarkSupport
import AppexCore
import Benchmark
import Foundation

// Compiling and evaluating one typical activation rule: the three-deep web-URL SUBQUERY that
// ShaarliOS (and 24 other projects of the corpus) write, spread over seven lines with tabs.

/// Read from the corpus in setup.
nonisolated(unsafe) var format = ""
nonisolated(unsafe) var rule: ActivationRule!
nonisolated(unsafe) var items: [Int: ActivationItems] = [:]
nonisolated(unsafe) var contexts: [Int: ActivationContext] = [:]

let types = UTTypeGraph.system

func loadRule() throws {
    format = try CorpusRules.predicate(repo: "mro/ShaarliOS", path: "swift4/Share/Info.plist")
    rule = try ActivationRule(predicateFormat: format)
    for count in [1, 100] {
        items[count] = sharedItems(attachments: count)
        contexts[count] = ActivationContext(items: items[count]!, types: types)
        precondition(rule.matches(contexts[count]!) && handWritten(items[count]!), "the rule must match the shared URL")
    }
}

/// The rule, written by hand in Swift: any attachment of any item with a type that conforms
/// to public.url but not to public.file-url.
@inline(never)
func handWritten(_ items: ActivationItems) -> Bool {
    items.extensionItems.contains { item in
        item.attachments.contains { attachment in
            attachment.registeredTypeIdentifiers.contains { type in
                types.conforms(type, to: "public.url") && !types.conforms(type, to: "public.file-url")
            }
        }
    }
}

/// What any compiler of this text must do at least: one pass over its bytes, splitting it into
/// words, quoted strings, numbers and punctuation. Returns the number of tokens.
@inline(never)
func tokenize(_ text: String) -> Int {
    var tokens = 0
    var bytes = text.utf8.makeIterator()
    var pending = bytes.next()
    while let byte = pending {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D:
            pending = bytes.next()
        case UInt8(ascii: "\""):
            tokens += 1
            while let next = bytes.next(), next != UInt8(ascii: "\"") {}
            pending = bytes.next()
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "$"), UInt8(ascii: "@"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            tokens += 1
            repeat {
                pending = bytes.next()
            } while pending.map { $0 >= 0x80 || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) } ?? false
        default:
            tokens += 1
            pending = bytes.next()
        }
    }
    return tokens
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .instructions, .mallocCountTotal],
        warmupIterations: 100,
        maxDuration: .seconds(2),
        maxIterations: 20_000
    )

    Benchmark("Compile: 3-deep SUBQUERY rule") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try ActivationRule(predicateFormat: format))
        }
    } setup: {
        try loadRule()
    }

    Benchmark("Compile baseline: tokenize the same text") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(tokenize(format))
        }
    } setup: {
        try loadRule()
    }

    for count in [1, 100] {
        Benchmark("Evaluate, \(count) attachment(s), context built") { benchmark in
            let items = items[count]!
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(rule.matches(items, types: types))
            }
        } setup: {
            try loadRule()
        }

        Benchmark("Evaluate, \(count) attachment(s), context prebuilt") { benchmark in
            let context = contexts[count]!
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(rule.matches(context))
            }
        } setup: {
            try loadRule()
        }

        Benchmark("Evaluate baseline, \(count) attachment(s): hand-written Swift") { benchmark in
            let items = items[count]!
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(handWritten(items))
            }
        } setup: {
            try loadRule()
        }
    }
}
