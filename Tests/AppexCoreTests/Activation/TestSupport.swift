import AppexCore
import Foundation
import Testing

/// The type graph rule tests evaluate in: the real system table.
func activationTestTypes() -> UTTypeGraph {
    .system
}

/// Items with one item holding one attachment per list of type identifiers.
func items(_ attachments: [String]..., text: String? = nil) -> ActivationItems {
    ActivationItems([
        ActivationItems.Item(
            attributedContentText: text,
            attachments: attachments.map { ActivationItems.Attachment(registeredTypeIdentifiers: $0) })
    ])
}

/// Whether a predicate rule matches the items.
func evaluate(_ format: String, _ items: ActivationItems = ActivationItems([])) throws -> Bool {
    try ActivationRule(predicateFormat: format).matches(items, types: activationTestTypes())
}

/// Evaluates a predicate with SELF bound to a value.
func evaluate(_ format: String, on object: PredicateValue) throws -> Bool {
    try CompiledPredicate(format: format).evaluate(with: object, types: activationTestTypes())
}

/// The error a rule fails with, or nil when it compiles.
func compileError(_ format: String) -> ActivationRuleError? {
    do {
        _ = try ActivationRule(predicateFormat: format)
        return nil
    } catch {
        return error
    }
}

/// The shared corpus folder beside the package (`../shared/corpus`), if present.
func corpusDirectory() -> URL? {
    let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    return FileManager.default.fileExists(atPath: corpus.appendingPathComponent("activation-rules.jsonl").path) ? corpus : nil
}

/// One line of activation-rules.jsonl.
struct CorpusRule {
    var kind: String
    var rule: PropertyListValue
    var key: String
    var repo: String
    var line: Int

    var text: String? { rule.stringValue }
}

/// Every rule of the corpus, or nil (with a printed note) when the corpus is absent.
func corpusRules() throws -> [CorpusRule]? {
    guard let directory = corpusDirectory() else {
        print("note: ../shared/corpus/activation-rules.jsonl not found beside the package; skipping corpus checks")
        return nil
    }
    let text = try String(contentsOf: directory.appendingPathComponent("activation-rules.jsonl"), encoding: .utf8)
    var rules: [CorpusRule] = []
    for (index, line) in text.split(separator: "\n").enumerated() {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        rules.append(
            CorpusRule(
                kind: try #require(object["kind"] as? String),
                rule: try PropertyListValue(foundationObject: try #require(object["rule"])),
                key: try #require(object["key"] as? String),
                repo: try #require(object["repo"] as? String),
                line: index + 1))
    }
    return rules
}
