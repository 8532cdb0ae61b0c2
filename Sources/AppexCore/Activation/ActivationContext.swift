/// The facts about one set of items that every rule reads, computed once per query.
///
/// A share query evaluates thousands of rules against the same items. Build one context and
/// pass it to ``ActivationRule/matches(_:)`` for each rule, or to ``ActivationRuleSet`` for
/// all of them: the key-path tree, each type's conformance set and each attachment's kinds for
/// dictionary rules are then computed once.
///
/// ```swift
/// let context = ActivationContext(items: items, types: .system)
/// let offered = extensions.filter { $0.rule.matches(context) }
/// ```
public struct ActivationContext: Sendable {
    /// The precomputed facts, behind one reference so a context is cheap to copy and pass.
    final class Storage: Sendable {
        let items: ActivationItems
        let types: UTTypeGraph
        /// The key-path root of predicates.
        let root: PredicateValue
        /// Each type identifier seen in the items, as written and lower-cased, mapped to the
        /// lower-cased identifiers it conforms to (itself included).
        let conformance: [String: Set<String>]
        /// Attachments grouped by their kinds, for fuzzy and strict matching.
        let fuzzyKinds: [KindGroup]
        let strictKinds: [KindGroup]
        /// The number of attachments over all items.
        let attachmentCount: Int
        /// Whether any item has non-empty content text.
        let hasContentText: Bool

        init(items: ActivationItems, types: UTTypeGraph) {
            self.items = items
            self.types = types
            self.root = items.predicateRoot
            var conformance: [String: Set<String>] = [:]
            var identifiers: [String] = []
            for item in items.extensionItems {
                for attachment in item.attachments { identifiers += attachment.registeredTypeIdentifiers }
            }
            for fileProviderItem in items.fileproviderItems {
                for key in ["contentType", "typeIdentifier"] {
                    if case .string(let identifier)? = fileProviderItem[key] { identifiers.append(identifier) }
                }
            }
            for identifier in identifiers where conformance[identifier] == nil {
                let ancestors = ActivationContext.ancestors(of: identifier, in: types)
                conformance[identifier] = ancestors
                conformance[identifier.lowercased()] = ancestors
            }
            self.conformance = conformance

            var fuzzy: [AttachmentKinds: Int] = [:]
            var strict: [AttachmentKinds: Int] = [:]
            var attachmentCount = 0
            for item in items.extensionItems {
                for attachment in item.attachments {
                    attachmentCount += 1
                    let all = attachment.registeredTypeIdentifiers
                    fuzzy[ActivationContext.kinds(of: all, conformance), default: 0] += 1
                    strict[ActivationContext.kinds(of: Array(all.prefix(1)), conformance), default: 0] += 1
                }
            }
            self.fuzzyKinds = fuzzy.map { KindGroup(kinds: $0.key, count: $0.value) }.sorted { $0.kinds.rawValue < $1.kinds.rawValue }
            self.strictKinds = strict.map { KindGroup(kinds: $0.key, count: $0.value) }.sorted { $0.kinds.rawValue < $1.kinds.rawValue }
            self.attachmentCount = attachmentCount
            self.hasContentText = items.extensionItems.contains { !($0.attributedContentText ?? "").isEmpty }
        }
    }

    /// Attachments that share one set of kinds, and how many there are.
    struct KindGroup: Sendable {
        let kinds: AttachmentKinds
        let count: Int
    }

    let storage: Storage

    /// The items this context describes.
    public var items: ActivationItems { storage.items }
    /// The type graph conformance is decided in.
    public var types: UTTypeGraph { storage.types }
    var root: PredicateValue { storage.root }
    var fuzzyKinds: [KindGroup] { storage.fuzzyKinds }
    var strictKinds: [KindGroup] { storage.strictKinds }
    var attachmentCount: Int { storage.attachmentCount }
    var hasContentText: Bool { storage.hasContentText }

    public init(items: ActivationItems, types: UTTypeGraph) {
        storage = Storage(items: items, types: types)
    }

    /// Whether `type` conforms to `target`, which must already be lower-cased.
    func conforms(_ type: String, toLowercased target: String) -> Bool {
        if let ancestors = storage.conformance[type] { return ancestors.contains(target) }
        return storage.types.conforms(type, to: target)
    }

    /// Every identifier `identifier` conforms to, lower-cased, itself included.
    static func ancestors(of identifier: String, in types: UTTypeGraph) -> Set<String> {
        var seen: Set<String> = []
        var pending = [identifier.lowercased()]
        while let current = pending.popLast() {
            guard seen.insert(current).inserted else { continue }
            if let declaration = types.declaration(for: current) {
                pending += declaration.conformsTo.map { $0.lowercased() }
            }
        }
        return seen
    }

    /// The dictionary-rule kinds an attachment with these identifiers belongs to.
    static func kinds(of identifiers: [String], _ conformance: [String: Set<String>]) -> AttachmentKinds {
        var kinds: AttachmentKinds = []
        for identifier in identifiers {
            guard let ancestors = conformance[identifier] else { continue }
            if ancestors.contains("public.image") { kinds.insert(.image) }
            if ancestors.contains("public.movie") { kinds.insert(.movie) }
            if ancestors.contains("public.url") && !ancestors.contains("public.file-url") { kinds.insert(.webURL) }
            if ancestors.contains("public.file-url") || (ancestors.contains("public.data") && !ancestors.contains("public.url")) {
                kinds.insert(.file)
            }
            if ancestors.contains("public.text") { kinds.insert(.text) }
            if ancestors.contains("com.apple.property-list") && !ancestors.contains("public.file-url") { kinds.insert(.webPage) }
        }
        return kinds
    }
}

/// The kinds of attachment that the dictionary form of an activation rule counts.
struct AttachmentKinds: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    static let webPage = AttachmentKinds(rawValue: 1 << 0)
    static let webURL = AttachmentKinds(rawValue: 1 << 1)
    static let image = AttachmentKinds(rawValue: 1 << 2)
    static let movie = AttachmentKinds(rawValue: 1 << 3)
    static let text = AttachmentKinds(rawValue: 1 << 4)
    static let file = AttachmentKinds(rawValue: 1 << 5)

    /// The order in which an attachment is assigned to one supported kind: most specific first.
    static let priority: [AttachmentKinds] = [.webPage, .webURL, .image, .movie, .text, .file]
}
