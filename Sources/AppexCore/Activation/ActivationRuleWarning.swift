/// A problem ``ActivationRuleLint`` found in a rule that parses: it will match everything,
/// nothing, or not what its author meant.
public struct ActivationRuleWarning: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        public var description: String { name }

        /// The rule accepts every input (`TRUEPREDICATE`, a tautology, any attachment at all).
        public static let matchesEverything = Code(name: "matchesEverything")
        /// The rule can never match (`FALSEPREDICATE`, an empty or all-zero dictionary).
        public static let neverMatches = Code(name: "neverMatches")
        /// A type identifier the type graph does not declare.
        public static let unknownType = Code(name: "unknownType")
        /// A MIME type (`image/png`) where a uniform type identifier belongs.
        public static let mimeTypeAsType = Code(name: "mimeTypeAsType")
        /// A type so broad (`public.item`, `public.data`) that almost every attachment conforms.
        public static let broadType = Code(name: "broadType")
        /// `UTI-CONFORMS-TO` or `UTI-EQUALS` applied to a whole array without `ANY`, or with
        /// `ANY` to an array of arrays (`extensionItems.attachments.registeredTypeIdentifiers`).
        public static let missingAny = Code(name: "missingAny")
        /// A key path that the serialized items do not have.
        public static let unknownKeyPath = Code(name: "unknownKeyPath")
        /// `AND` and `OR` mixed without parentheses.
        public static let precedence = Code(name: "precedence")
        /// A dictionary key that is not one of the documented keys.
        public static let unknownKey = Code(name: "unknownKey")
        /// A count or Boolean written as a string, or a count as a real.
        public static let valueType = Code(name: "valueType")
        /// A predicate string inside a dictionary rule, where it is ignored.
        public static let predicateInDictionary = Code(name: "predicateInDictionary")
        /// A key that belongs elsewhere in the Info.plist.
        public static let misplacedKey = Code(name: "misplacedKey")
    }

    /// How much the problem matters.
    public enum Severity: Sendable, Hashable {
        /// Worth fixing; the rule still works as evaluated.
        case warning
        /// A store would reject the extension: `appex validate --distribution` fails on it.
        case distribution
    }

    public let code: Code
    public let severity: Severity
    /// What is wrong.
    public let message: String
    /// The dictionary key the warning is about, for dictionary rules.
    public let key: String?
    /// The 1-based line and column in a predicate rule's text, when the warning has a position.
    public let line: Int?
    public let column: Int?
    /// What to do about it.
    public let hint: String?

    public init(
        _ code: Code, _ message: String, severity: Severity = .warning, key: String? = nil,
        line: Int? = nil, column: Int? = nil, hint: String? = nil
    ) {
        self.code = code
        self.severity = severity
        self.message = message
        self.key = key
        self.line = line
        self.column = column
        self.hint = hint
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
