extension UTTypeGraph {
    /// Where a type in the graph was declared.
    public struct Origin: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        /// The built-in table, or a trusted list given to ``UTTypeGraph/init(declarations:)``.
        public static let system = Origin(name: "system")
        /// An app's `UTExportedTypeDeclarations`.
        public static let exported = Origin(name: "exported")
        /// An app's `UTImportedTypeDeclarations`.
        public static let imported = Origin(name: "imported")
        /// Nobody declares the type; a declaration only names it as a parent.
        public static let undeclared = Origin(name: "undeclared")

        /// The origin's name.
        public var description: String { name }
    }

    /// A declaration that ``UTTypeGraph/adding(_:)`` left out or overrode, and why.
    public struct Issue: Sendable, Hashable, CustomStringConvertible {
        /// What kind of issue this is. New codes may be added.
        public struct Code: Sendable, Hashable, CustomStringConvertible {
            fileprivate let name: String
            /// An app tried to redeclare a type the system declares; the system's stands.
            public static let redefinesSystemType = Code(name: "redefinesSystemType")
            /// An app exported an identifier in a namespace it can't own (`public.`, `dyn.`).
            public static let reservedIdentifier = Code(name: "reservedIdentifier")
            /// Another declaration of the same identifier won: an exported one over an
            /// imported one, or the first of two of the same kind.
            public static let overridden = Code(name: "overridden")

            /// The code's name.
            public var description: String { name }
        }

        /// What kind of issue this is.
        public let code: Code
        /// The declaration that lost.
        public let declaration: UTTypeDeclaration
        /// What happened and why.
        public let reason: String

        /// One line: the identifier, then the reason.
        public var description: String { "\(declaration.identifier) (\(declaration.kind)): \(reason)" }
    }
}
