/// The root, an item or an attachment of ``ActivationItems`` as predicates see it.
///
/// Its keys (`extensionItems`, `attachments`, `registeredTypeIdentifiers`, …) are resolved to
/// slots when a rule is compiled, so reading them costs an array index, not a string hash.
public final class PredicateObject: Sendable, Hashable, CustomStringConvertible {
    /// Which part of the items this is.
    public enum Kind: String, Sendable {
        case root, item, attachment
    }

    /// Which part of the items this is.
    public let kind: Kind
    /// One value per ``ItemKey``, `.null` where absent.
    let values: [PredicateValue]

    init(kind: Kind, _ entries: [ItemKey: PredicateValue]) {
        self.kind = kind
        var values = [PredicateValue](repeating: .null, count: ItemKey.allCases.count)
        for (key, value) in entries { values[key.index] = value }
        self.values = values
    }

    public static func == (lhs: PredicateObject, rhs: PredicateObject) -> Bool {
        lhs === rhs || (lhs.kind == rhs.kind && lhs.values == rhs.values)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(values)
    }

    public var description: String { "<\(kind)>" }
}

/// The keys of the items' own objects.
enum ItemKey: String, Sendable, CaseIterable {
    case extensionItems, fileproviderItems
    case attributedTitle, attributedContentText, userInfo, attachments
    case registeredTypeIdentifiers, suggestedName, fileSize

    var index: Int {
        switch self {
        case .extensionItems: 0
        case .fileproviderItems: 1
        case .attributedTitle: 2
        case .attributedContentText: 3
        case .userInfo: 4
        case .attachments: 5
        case .registeredTypeIdentifiers: 6
        case .suggestedName: 7
        case .fileSize: 8
        }
    }
}
