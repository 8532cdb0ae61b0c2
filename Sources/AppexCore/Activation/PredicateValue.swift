public import Foundation

/// A value that a predicate expression evaluates to: a constant in the rule, or a value read
/// from the serialized items through a key path.
///
/// It mirrors the Foundation objects NSPredicate compares (`NSString`, `NSNumber`, `NSNull`,
/// `NSArray`, `NSDictionary`, `NSDate`, `NSData`) without dynamic casts.
public enum PredicateValue: Sendable, Hashable {
    case null
    case boolean(Bool)
    case integer(Int)
    case real(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case array([PredicateValue])
    case dictionary([String: PredicateValue])
    /// The root, an item or an attachment of ``ActivationItems``, whose keys are read by slot.
    case object(PredicateObject)
}

extension PredicateValue {
    /// Wraps a property-list value.
    public init(_ value: PropertyListValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .real(number)
        case .boolean(let flag): self = .boolean(flag)
        case .date(let date): self = .date(date)
        case .data(let data): self = .data(data)
        case .array(let values): self = .array(values.map(PredicateValue.init))
        case .dictionary(let entries): self = .dictionary(entries.mapValues(PredicateValue.init))
        }
    }

    /// The number, for booleans (0 or 1, as `NSNumber` does), integers and reals.
    var numericValue: Double? {
        switch self {
        case .integer(let number): Double(number)
        case .real(let number): number
        case .boolean(let flag): flag ? 1 : 0
        default: nil
        }
    }

    /// The elements, when this is a collection. A dictionary's elements are its values.
    var collectionElements: [PredicateValue]? {
        switch self {
        case .array(let values): values
        case .dictionary(let entries): Array(entries.values)
        default: nil
        }
    }

    /// The text for messages, in format-string syntax.
    var formatDescription: String {
        switch self {
        case .null: "nil"
        case .boolean(let flag): flag ? "YES" : "NO"
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .string(let text): "\"\(text)\""
        case .date(let date): "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .data(let data): "<\(data.count) bytes>"
        case .array(let values): "{" + values.map(\.formatDescription).joined(separator: ", ") + "}"
        case .dictionary(let entries): "{" + entries.keys.sorted().joined(separator: ", ") + "}"
        case .object(let object): "<\(object.kind)>"
        }
    }
}

extension PredicateValue {
    /// Equality as NSPredicate's `==` sees it: numbers and booleans compare by value, strings
    /// by their characters, collections element by element; values of unrelated kinds differ.
    func isEqual(to other: PredicateValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.string(let a), .string(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isEqual(to: $1) }
        case (.object(let a), .object(let b)):
            return a == b
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map(value.isEqual(to:)) ?? false }
        default:
            if let a = numericValue, let b = other.numericValue { return a == b }
            return false
        }
    }

    /// Ordering as NSPredicate's `<` sees it; `nil` when the two cannot be ordered.
    func compare(to other: PredicateValue) -> ComparisonResult? {
        switch (self, other) {
        case (.integer(let a), .integer(let b)):
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case (.string(let a), .string(let b)):
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case (.date(let a), .date(let b)):
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        default:
            guard let a = numericValue, let b = other.numericValue, !a.isNaN, !b.isNaN else { return nil }
            return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        }
    }
}
