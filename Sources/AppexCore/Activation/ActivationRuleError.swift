/// Why an activation rule could not be read: a syntax error in an NSPredicate format string,
/// a known mistake (a key name used as the predicate, escaped quotes, a build-setting
/// placeholder), a rule over the size or nesting limit, or a value of the wrong type.
///
/// The error says where (``line`` and ``column``, 1-based, in the rule text), what the parser
/// expected and found, and a ``hint`` on what to do.
///
/// ```swift
/// do { _ = try ActivationRule(predicateFormat: "SUBQUERY(extensionItems, $e, TRUEPREDICATE") }
/// catch { print(error) } // line 1, column 44: expected ')' to close SUBQUERY( …, found the end of the rule
/// ```
public struct ActivationRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        public var description: String { name }

        /// The predicate string does not follow the NSPredicate format-string grammar.
        public static let syntax = Code(name: "syntax")
        /// The predicate string is empty or only white space.
        public static let empty = Code(name: "empty")
        /// The rule text is longer than ``ActivationRuleLimits/maximumLength``.
        public static let tooLong = Code(name: "tooLong")
        /// The rule nests deeper than ``ActivationRuleLimits/maximumNesting``.
        public static let tooDeep = Code(name: "tooDeep")
        /// The predicate uses a construct that needs run-time arguments (`%@`, `%K`) or that Appex does not evaluate.
        public static let unsupported = Code(name: "unsupported")
        /// The predicate string is the name of an activation-dictionary key.
        public static let keyNameAsPredicate = Code(name: "keyNameAsPredicate")
        /// The predicate holds `\"` escapes copied from source code.
        public static let escapedQuotes = Code(name: "escapedQuotes")
        /// The predicate is an unexpanded build-setting placeholder such as `$(EXTENSION_ACTIVATION)`.
        public static let buildSettingPlaceholder = Code(name: "buildSettingPlaceholder")
        /// The rule's property-list value is neither a string nor a dictionary.
        public static let invalidRuleType = Code(name: "invalidRuleType")
        /// A dictionary value has a type that cannot stand for a count or a Boolean.
        public static let invalidValue = Code(name: "invalidValue")
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong, as a sentence fragment without the location.
    public let message: String
    /// The 1-based line in the rule text, when the error has a position.
    public let line: Int?
    /// The 1-based column (in Unicode scalars) in the rule text, when the error has a position.
    public let column: Int?
    /// What the parser expected at that position, if it is a syntax error.
    public let expected: String?
    /// What the parser found at that position, if it is a syntax error.
    public let found: String?
    /// What to do about it.
    public let hint: String?
    /// The key inside a dictionary rule that the error is about, such as `NSExtensionActivationSupportsText`.
    public let key: String?

    public init(
        _ code: Code,
        _ message: String,
        line: Int? = nil,
        column: Int? = nil,
        expected: String? = nil,
        found: String? = nil,
        hint: String? = nil,
        key: String? = nil
    ) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found
        self.hint = hint
        self.key = key
    }

    public var description: String {
        var text = ""
        if let line, let column { text += "line \(line), column \(column): " }
        if let key { text += "\(key): " }
        text += message
        if let hint { text += " (hint: \(hint))" }
        return text
    }
}

/// The limits that keep hostile rules from exhausting memory or the stack.
public enum ActivationRuleLimits {
    /// The longest predicate string accepted, in UTF-8 bytes (64 KiB). The longest real rule
    /// seen is under 4 KiB.
    public static let maximumLength = 64 * 1024
    /// The deepest nesting accepted: parentheses, `NOT`, `SUBQUERY`, aggregates, and chains
    /// of arithmetic or subscripts each count one level. Real rules stay under 15.
    public static let maximumNesting = 100
}
