/// One problem found in a bundle: what is wrong, in which file and key, and what to do.
///
/// Validation never stops at the first problem; it returns every diagnostic at once.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable, Codable, Comparable {
        /// Something the user should know, that changes nothing.
        case note
        /// Allowed, but probably not what the author meant, or rejected by a store.
        case warning
        /// The bundle can't be installed until this is fixed.
        case error

        private var rank: Int {
            switch self {
            case .note: 0
            case .warning: 1
            case .error: 2
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// How serious the problem is.
    public var severity: Severity
    /// A stable, kebab-case name for the kind of problem, such as `missing-key`, for scripts.
    public var code: String
    /// The file the problem is in, relative to the directory that was validated.
    public var file: String
    /// The key path inside the file, such as `NSExtension.NSExtensionPointIdentifier`, when there is one.
    public var keyPath: String?
    /// What is wrong, as a sentence.
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(
        _ severity: Severity, _ code: String, file: String, keyPath: String? = nil, _ message: String, hint: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.file = file
        self.keyPath = keyPath
        self.message = message
        self.hint = hint
    }

    /// One line: `error: FILE: KEY.PATH: message (hint)`.
    public var description: String {
        var line = "\(severity.rawValue): \(file)"
        if let keyPath { line += ": \(keyPath)" }
        line += ": \(message)"
        if let hint { line += " (\(hint))" }
        return line
    }
}

extension Array where Element == Diagnostic {
    /// Whether any diagnostic is an error.
    public var containsErrors: Bool { contains { $0.severity == .error } }
}
