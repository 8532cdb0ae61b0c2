import Foundation

/// An extension's activation rule: the dictionary form or an NSPredicate string, compiled.
///
/// Parse it once from the plist value of `NSExtensionActivationRule` and evaluate it against
/// the items of each query:
///
/// ```swift
/// let rule = try ActivationRule.parse(info["NSExtension"]?["NSExtensionAttributes"]?["NSExtensionActivationRule"] ?? "")
/// let context = ActivationContext(items: items, types: graph)
/// if rule.matches(context) { offer(extension) }
/// ```
public enum ActivationRule: Sendable {
    case dictionary(ActivationDictionary)
    case predicate(CompiledPredicate)

    /// Reads the plist value of `NSExtensionActivationRule`: a string is a predicate, a dictionary the dictionary form.
    ///
    /// - Throws: ``ActivationRuleError`` for a syntax error, a known mistake, or another value type.
    public static func parse(_ value: PropertyListValue) throws(ActivationRuleError) -> ActivationRule {
        switch value {
        case .string(let format):
            return try ActivationRule(predicateFormat: format)
        case .dictionary(let entries):
            return .dictionary(try ActivationDictionary(entries))
        default:
            throw ActivationRuleError(
                .invalidRuleType, "NSExtensionActivationRule is \(value.kindName == "array" || value.kindName == "integer" ? "an" : "a") \(value.kindName)",
                expected: "a string (an NSPredicate) or a dictionary",
                hint: "write a dictionary such as NSExtensionActivationSupportsImageWithMaxCount = 1, or a predicate string")
        }
    }

    /// Compiles a predicate rule, recognizing the mistakes real projects make.
    public init(predicateFormat format: String) throws(ActivationRuleError) {
        let trimmed = format.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("NSExtension"), trimmed.allSatisfy({ $0.isLetter || $0.isNumber }) {
            throw Self.keyNameError(trimmed, format: format)
        }
        self = .predicate(try CompiledPredicate(format: format))
    }

    private static func keyNameError(_ key: String, format: String) -> ActivationRuleError {
        let start = format.utf8.firstIndex { !($0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D)) }.map { format.utf8.distance(from: format.utf8.startIndex, to: $0) } ?? 0
        let (line, column) = SourceLocator(bytes: Array(format.utf8)).location(of: start)
        return ActivationRuleError(
            .keyNameAsPredicate, "the predicate is the key name '\(key)', which never matches",
            line: line, column: column, expected: "a predicate", found: "'\(key)'",
            hint: "make NSExtensionActivationRule a dictionary holding \(key), or write a SUBQUERY predicate")
    }

    /// Whether the rule accepts the items. Builds an ``ActivationContext``; when evaluating many
    /// rules against the same items, build the context once and call ``matches(_:)``.
    public func matches(_ items: ActivationItems, types: UTTypeGraph) -> Bool {
        matches(ActivationContext(items: items, types: types))
    }

    /// Whether the rule accepts the items described by `context`.
    public func matches(_ context: ActivationContext) -> Bool {
        switch self {
        case .dictionary(let dictionary): dictionary.matches(context)
        case .predicate(let predicate): predicate.evaluate(context)
        }
    }

    /// The rule as written, for storing in the registry and parsing again.
    public var source: PropertyListValue {
        switch self {
        case .dictionary(let dictionary): .dictionary(dictionary.source)
        case .predicate(let predicate): .string(predicate.format)
        }
    }
}
