import Foundation

/// A parsed predicate: the tree the parser builds and the evaluator walks.
///
/// Variables are resolved to frame slots and constants prepared (strings folded, LIKE patterns
/// and regular expressions compiled) when the tree is built, so evaluation never re-parses.
indirect enum PredicateNode: Sendable, Hashable {
    case constant(Bool)
    case not(PredicateNode)
    case and([PredicateNode])
    case or([PredicateNode])
    case comparison(ComparisonNode)
}

/// `ANY`, `ALL`, `NONE` (`SOME` is `ANY`), or none: how a comparison treats a collection on its left.
enum ComparisonModifier: String, Sendable {
    case direct = ""
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}

/// The operator of a comparison predicate.
enum ComparisonOperator: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case like = "LIKE"
    case matches = "MATCHES"
    case utiConformsTo = "UTI-CONFORMS-TO"
    case utiEquals = "UTI-EQUALS"

    /// Whether the `[c]`, `[d]` options apply.
    var takesStringOptions: Bool {
        switch self {
        case .equal, .notEqual, .in, .contains, .beginsWith, .endsWith, .like, .matches: true
        default: false
        }
    }
}

/// The `[c]`, `[d]` and `[n]` options of a string comparison.
struct StringOptions: OptionSet, Sendable, Hashable {
    let rawValue: UInt8
    static let caseInsensitive = StringOptions(rawValue: 1)
    static let diacriticInsensitive = StringOptions(rawValue: 2)
    /// `[n]`: the strings are already normalized. Accepted and ignored, as Foundation does outside Core Data.
    static let normalized = StringOptions(rawValue: 4)

    var compareOptions: String.CompareOptions {
        var options: String.CompareOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }

    var spelled: String {
        var text = ""
        if contains(.caseInsensitive) { text += "c" }
        if contains(.diacriticInsensitive) { text += "d" }
        if contains(.normalized) { text += "n" }
        return text.isEmpty ? "" : "[\(text)]"
    }
}

/// A comparison such as `ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO "public.image"`.
///
/// A class, not a struct: the evaluator then binds one reference per visit instead of
/// retaining every field.
final class ComparisonNode: Sendable, Hashable {
    let modifier: ComparisonModifier
    let operation: ComparisonOperator
    let options: StringOptions
    let left: ExpressionNode
    let right: ExpressionNode
    /// The byte offset of the operator in the rule text.
    let offset: Int
    /// Prepared from a constant right-hand side: the folded string, LIKE pattern or regex.
    let prepared: PreparedPattern?
    /// For `SUBQUERY(…).@count` compared with an integer, such as `>= 1`: the count past which
    /// the comparison's answer no longer changes, so counting can stop there.
    let countLimit: Int?
    /// In a rule set's canonical comparison (``PredicateCanonicalForm``), which of its type
    /// constants this UTI comparison's right-hand side is: the evaluator records each test of it.
    let typeParameter: Int?

    init(
        modifier: ComparisonModifier, operation: ComparisonOperator, options: StringOptions,
        left: ExpressionNode, right: ExpressionNode, offset: Int, prepared: PreparedPattern?, typeParameter: Int? = nil
    ) {
        self.typeParameter = typeParameter
        self.modifier = modifier
        self.operation = operation
        self.options = options
        self.left = left
        self.right = right
        self.offset = offset
        self.prepared = prepared
        // `>= n` and `< n` are decided once the count reaches n; the others once it passes n,
        // after which every count compares with n alike.
        countLimit = if modifier == .direct, case .subqueryCount = left, case .constant(.integer(let bound)) = right {
            switch operation {
            case .greaterOrEqual, .less: max(bound, 0)
            case .equal, .notEqual, .greater, .lessOrEqual: bound < 0 ? 0 : bound == Int.max ? bound : bound + 1
            default: nil
            }
        } else {
            nil
        }
    }
}

/// What a constant right-hand side was compiled into.
enum PreparedPattern: Sendable {
    /// The string folded by the comparison's options (or lower-cased, for UTI operators).
    case folded(String)
    /// A LIKE pattern compiled from the folded pattern.
    case like([LikeElement])
    /// A MATCHES regular expression.
    case regex(LinearRegex)
}

/// A key-path component: a key, or a collection operator such as `@count`.
enum KeyPathComponent: Sendable, Hashable {
    /// A key, with its slot when it is one of the items' own keys (read without hashing).
    case key(String, ItemKey?)
    case collectionOperator(CollectionOperator)

    static func key(_ name: String) -> KeyPathComponent { .key(name, ItemKey(rawValue: name)) }
}

/// The collection operators of key-value coding.
enum CollectionOperator: String, Sendable, CaseIterable {
    case count, sum, avg, min, max
    case distinctUnionOfObjects, unionOfObjects, distinctUnionOfArrays, unionOfArrays
}

/// `[FIRST]`, `[LAST]`, `[SIZE]` or `[expression]`.
enum IndexKind: Sendable, Hashable {
    case first, last, size
    case expression(ExpressionNode)
}

/// `SUBQUERY(collection, $variable, predicate)`. A class for the same reason as ``ComparisonNode``.
final class SubqueryNode: Sendable, Hashable {
    let collection: ExpressionNode
    let slot: Int
    let variable: String
    let predicate: PredicateNode

    init(collection: ExpressionNode, slot: Int, variable: String, predicate: PredicateNode) {
        self.collection = collection
        self.slot = slot
        self.variable = variable
        self.predicate = predicate
    }
}

/// An expression: something that evaluates to a ``PredicateValue``.
indirect enum ExpressionNode: Sendable, Hashable {
    case constant(PredicateValue)
    case evaluatedObject
    case variable(slot: Int, name: String)
    case keyPath(ExpressionNode, [KeyPathComponent])
    case aggregate([ExpressionNode])
    case subquery(SubqueryNode)
    /// `SUBQUERY(…).@count`, counted without building the filtered array.
    case subqueryCount(SubqueryNode)
    case index(ExpressionNode, IndexKind)
    case arithmetic(String, ExpressionNode, ExpressionNode)
    case negate(ExpressionNode)

    /// The constant value, if this expression is one.
    var constantValue: PredicateValue? {
        switch self {
        case .constant(let value): value
        case .aggregate(let elements):
            elements.allSatisfy { $0.constantValue != nil } ? .array(elements.compactMap(\.constantValue)) : nil
        default: nil
        }
    }
}
