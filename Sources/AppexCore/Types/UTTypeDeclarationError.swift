/// Why a uniform type declaration in a property list could not be read.
///
/// Every error names the key path of the offending value, such as
/// `UTExportedTypeDeclarations[2].UTTypeIdentifier`, and says what is wrong there.
public struct UTTypeDeclarationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        /// A value has the wrong property-list kind, such as a number where a string belongs.
        public static let wrongKind = Code(name: "wrongKind")
        /// A required key is missing.
        public static let missingKey = Code(name: "missingKey")
        /// An identifier or tag is not well formed.
        public static let invalidValue = Code(name: "invalidValue")
        /// There are more declarations, parents or tags than Appex accepts.
        public static let tooMany = Code(name: "tooMany")

        /// The code's name, for logs and JSON.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public let code: Code
    /// Where the problem is, such as `UTExportedTypeDeclarations[2].UTTypeIdentifier`.
    public let keyPath: String
    /// What is wrong there and, where it helps, what to do.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, keyPath: String, _ reason: String) {
        self.code = code
        self.keyPath = keyPath
        self.reason = reason
    }

    /// One line: the key path, then the reason.
    public var description: String { "\(keyPath.isEmpty ? "(top level)" : keyPath): \(reason)" }
}
