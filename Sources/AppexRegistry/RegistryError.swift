public import AppexCore

/// Why a registry operation failed: what was wrong, and what to do.
public struct RegistryError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let description: String
        /// The bundle failed validation; ``RegistryError/diagnostics`` says why.
        public static let invalidBundle = Code(description: "invalid-bundle")
        /// No app or extension has that identifier.
        public static let notInstalled = Code(description: "not-installed")
        /// An identifier is already taken by another installed app or extension.
        public static let conflict = Code(description: "conflict")
        /// The bundle is older than the installed version.
        public static let downgrade = Code(description: "downgrade")
        /// A value is not one the operation takes, such as a display mode other than
        /// `compact` and `expanded`.
        public static let invalidArgument = Code(description: "invalid-argument")
        /// The database or the file system failed.
        public static let storage = Code(description: "storage")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, as a sentence.
    public var message: String
    /// What to do about it.
    public var hint: String?
    /// For ``Code/invalidBundle``, every problem validation found.
    public var diagnostics: [Diagnostic]

    public init(_ code: Code, _ message: String, hint: String? = nil, diagnostics: [Diagnostic] = []) {
        self.code = code
        self.message = message
        self.hint = hint
        self.diagnostics = diagnostics
    }

    public var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }

    static func storage(_ what: String, _ error: any Error) -> RegistryError {
        RegistryError(.storage, "\(what): \(error)", hint: "check that the Appex data folder is writable and the disk is not full")
    }
}
