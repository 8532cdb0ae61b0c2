import AppexCore
import Foundation
import Testing

/// The type graph activation tests evaluate against: the public.* hierarchy as Apple declares it.
///
/// The one place to change once `UTTypeGraph.system` lands: return `.system` here.
func activationTestTypes() -> UTTypeGraph {
    TestTypeGraph.graph
}

private enum TestTypeGraph {
    static let graph = UTTypeGraph(declarations: declarations)

    static let declarations: [UTTypeDeclaration] = [
        UTTypeDeclaration(identifier: "public.item"),
        UTTypeDeclaration(identifier: "public.content"),
        UTTypeDeclaration(identifier: "public.data", conformsTo: ["public.item"]),
        UTTypeDeclaration(identifier: "public.directory", conformsTo: ["public.item"]),
        UTTypeDeclaration(identifier: "public.folder", conformsTo: ["public.directory"]),
        UTTypeDeclaration(identifier: "public.text", conformsTo: ["public.data", "public.content"]),
        UTTypeDeclaration(identifier: "public.plain-text", conformsTo: ["public.text"], filenameExtensions: ["txt"], mimeTypes: ["text/plain"]),
        UTTypeDeclaration(identifier: "public.utf8-plain-text", conformsTo: ["public.plain-text"]),
        UTTypeDeclaration(identifier: "public.html", conformsTo: ["public.text"], mimeTypes: ["text/html"]),
        UTTypeDeclaration(identifier: "public.source-code", conformsTo: ["public.plain-text"]),
        UTTypeDeclaration(identifier: "public.swift-source", conformsTo: ["public.source-code"]),
        UTTypeDeclaration(identifier: "public.vcard", conformsTo: ["public.text"]),
        UTTypeDeclaration(identifier: "public.url", conformsTo: ["public.data"]),
        UTTypeDeclaration(identifier: "public.file-url", conformsTo: ["public.url"]),
        UTTypeDeclaration(identifier: "public.image", conformsTo: ["public.data", "public.content"]),
        UTTypeDeclaration(identifier: "public.jpeg", conformsTo: ["public.image"], filenameExtensions: ["jpg", "jpeg"], mimeTypes: ["image/jpeg"]),
        UTTypeDeclaration(identifier: "public.png", conformsTo: ["public.image"], filenameExtensions: ["png"], mimeTypes: ["image/png"]),
        UTTypeDeclaration(identifier: "public.camera-raw-image", conformsTo: ["public.image"]),
        UTTypeDeclaration(identifier: "public.audiovisual-content", conformsTo: ["public.data", "public.content"]),
        UTTypeDeclaration(identifier: "public.movie", conformsTo: ["public.audiovisual-content"]),
        UTTypeDeclaration(identifier: "public.mpeg-4", conformsTo: ["public.movie"], mimeTypes: ["video/mp4"]),
        UTTypeDeclaration(identifier: "com.apple.quicktime-movie", conformsTo: ["public.movie"]),
        UTTypeDeclaration(identifier: "public.audio", conformsTo: ["public.audiovisual-content"]),
        UTTypeDeclaration(identifier: "public.mp3", conformsTo: ["public.audio"], mimeTypes: ["audio/mpeg"]),
        UTTypeDeclaration(identifier: "public.composite-content", conformsTo: ["public.content"]),
        UTTypeDeclaration(identifier: "com.adobe.pdf", conformsTo: ["public.data", "public.composite-content"], mimeTypes: ["application/pdf"]),
        UTTypeDeclaration(identifier: "com.apple.property-list", conformsTo: ["public.data"]),
        UTTypeDeclaration(identifier: "public.archive", conformsTo: ["public.data"]),
        UTTypeDeclaration(identifier: "public.zip-archive", conformsTo: ["public.data", "public.archive"]),
    ]
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
