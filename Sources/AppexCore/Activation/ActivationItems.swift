/// The serialized description of a request's input items that activation rules are evaluated
/// against: titles, content text, user info and each attachment's registered type identifiers.
///
/// Apple evaluates rules the same way, from a description of the items, never from live
/// providers. Build one from the host's items, or decode the CLI's `ITEMS.json`:
///
/// ```swift
/// let items = try ActivationItems(jsonData: Data(#"[{"attachments": [{"registeredTypeIdentifiers": ["public.jpeg"]}]}]"#.utf8))
/// ```
public struct ActivationItems: Sendable, Hashable, Codable {
    /// The `NSExtensionItem`s of the request, as the key path `extensionItems` sees them.
    public var extensionItems: [Item]
    /// The File Provider items an `NSExtensionFileProviderActionActivationRule` is evaluated
    /// against (key path `fileproviderItems`). Each is a dictionary of the item's properties
    /// (`filename`, `contentType`, `userInfo`, `isUploading`, …), read by key.
    public var fileproviderItems: [[String: PropertyListValue]]

    public init(_ items: [Item], fileproviderItems: [[String: PropertyListValue]] = []) {
        self.extensionItems = items
        self.fileproviderItems = fileproviderItems
    }

    /// One `NSExtensionItem`, as rules see it.
    public struct Item: Sendable, Hashable, Codable {
        /// The plain text of `attributedTitle` (key path `attributedTitle`).
        public var attributedTitle: String?
        /// The plain text of `attributedContentText` (key path `attributedContentText`).
        /// Non-empty content text is what `NSExtensionActivationSupportsText` accepts.
        public var attributedContentText: String?
        /// The item's `userInfo` (key path `userInfo`, and `userInfo."some key"`).
        public var userInfo: [String: PropertyListValue]?
        /// The item's attachments, in order (key path `attachments`).
        public var attachments: [Attachment]

        public init(
            attributedTitle: String? = nil,
            attributedContentText: String? = nil,
            userInfo: [String: PropertyListValue]? = nil,
            attachments: [Attachment] = []
        ) {
            self.attributedTitle = attributedTitle
            self.attributedContentText = attributedContentText
            self.userInfo = userInfo
            self.attachments = attachments
        }

        fileprivate enum CodingKeys: String, CodingKey, CaseIterable {
            case attributedTitle, attributedContentText, userInfo, attachments
        }

        public init(from decoder: any Decoder) throws {
            try requireKnownKeys(CodingKeys.self, of: "an item", in: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            attributedTitle = try container.decodeIfPresent(String.self, forKey: .attributedTitle)
            attributedContentText = try container.decodeIfPresent(String.self, forKey: .attributedContentText)
            userInfo = try container.decodeIfPresent([String: PropertyListValue].self, forKey: .userInfo)
            attachments = try container.decodeIfPresent([Attachment].self, forKey: .attachments) ?? []
        }
    }

    /// One attachment (an `NSItemProvider`), described without loading it.
    public struct Attachment: Sendable, Hashable, Codable {
        /// The provider's `registeredTypeIdentifiers`, most preferred first
        /// (key path `registeredTypeIdentifiers`). Strict matching reads only the first.
        public var registeredTypeIdentifiers: [String]
        /// The provider's `suggestedName`, such as a file name (key path `suggestedName`).
        public var suggestedName: String?
        /// The size in bytes when the host knows it, as for a file (key path `fileSize`), so a
        /// rule can refuse attachments that are too large: `$attachment.fileSize < 10000000`.
        public var fileSize: Int?

        public init(registeredTypeIdentifiers: [String], suggestedName: String? = nil, fileSize: Int? = nil) {
            self.registeredTypeIdentifiers = registeredTypeIdentifiers
            self.suggestedName = suggestedName
            self.fileSize = fileSize
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case registeredTypeIdentifiers, suggestedName, fileSize
        }

        public init(from decoder: any Decoder) throws {
            try requireKnownKeys(CodingKeys.self, of: "an attachment", in: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            registeredTypeIdentifiers = try container.decode([String].self, forKey: .registeredTypeIdentifiers)
            suggestedName = try container.decodeIfPresent(String.self, forKey: .suggestedName)
            fileSize = try container.decodeIfPresent(Int.self, forKey: .fileSize)
        }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case extensionItems, fileproviderItems
    }

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: Item.CodingKeys.self).allKeys
        guard keys.isEmpty else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "this is one item, not an array of items: put it in brackets, [{…}]"))
        }
        try requireKnownKeys(CodingKeys.self, of: "the items object", in: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        extensionItems = try container.decodeIfPresent([Item].self, forKey: .extensionItems) ?? []
        fileproviderItems = try container.decodeIfPresent([[String: PropertyListValue]].self, forKey: .fileproviderItems) ?? []
    }
}

extension ActivationItems {
    /// The items as the key-path root of a predicate: `extensionItems` and `fileproviderItems`.
    var predicateRoot: PredicateValue {
        .object(PredicateObject(kind: .root, [
            .extensionItems: .array(extensionItems.map(\.predicateValue)),
            .fileproviderItems: .array(fileproviderItems.map { .dictionary($0.mapValues(PredicateValue.init)) }),
        ]))
    }
}

extension ActivationItems.Item {
    var predicateValue: PredicateValue {
        var entries: [ItemKey: PredicateValue] = [.attachments: .array(attachments.map(\.predicateValue))]
        if let attributedTitle { entries[.attributedTitle] = .string(attributedTitle) }
        if let attributedContentText { entries[.attributedContentText] = .string(attributedContentText) }
        if let userInfo { entries[.userInfo] = .dictionary(userInfo.mapValues(PredicateValue.init)) }
        return .object(PredicateObject(kind: .item, entries))
    }
}

extension ActivationItems.Attachment {
    var predicateValue: PredicateValue {
        var entries: [ItemKey: PredicateValue] = [
            .registeredTypeIdentifiers: .array(registeredTypeIdentifiers.map(PredicateValue.string))
        ]
        if let suggestedName { entries[.suggestedName] = .string(suggestedName) }
        if let fileSize { entries[.fileSize] = .integer(fileSize) }
        return .object(PredicateObject(kind: .attachment, entries))
    }
}

/// Throws for a key of the object `decoder` holds that `Key` doesn't name: a misspelt key
/// would otherwise be ignored, and a rule tested against items the user didn't mean.
private func requireKnownKeys<Key: CodingKey & CaseIterable>(_: Key.Type, of what: String, in decoder: any Decoder) throws {
    let known = Key.allCases.map(\.stringValue)
    guard let unknown = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.first(where: { !known.contains($0.stringValue) }) else { return }
    throw DecodingError.dataCorrupted(DecodingError.Context(
        codingPath: decoder.codingPath + [unknown],
        debugDescription: "unknown key; \(what) has \(known.map { "\"\($0)\"" }.joined(separator: ", "))"))
}

/// Any key of a JSON object, to see which it has.
private struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
