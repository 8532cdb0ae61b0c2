/// One uniform type declaration, in the shape of an `UTExportedTypeDeclarations` entry.
///
/// A declaration names a type, the types it conforms to directly, and its tags. The
/// built-in table (`SystemTypes.plist`) and every app's Info.plist are lists of these;
/// ``UTTypeGraph`` joins them into one graph.
public struct UTTypeDeclaration: Sendable, Hashable {
    /// Whether a bundle owns a type it declares or only describes someone else's.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        /// The bundle owns the type (`UTExportedTypeDeclarations`). An exported declaration
        /// wins over an imported one of the same identifier.
        public static let exported = Kind(name: "exported")
        /// The bundle uses a type that someone else owns (`UTImportedTypeDeclarations`).
        public static let imported = Kind(name: "imported")

        /// The kind's name, `exported` or `imported`.
        public var description: String { name }
    }

    /// The type's identifier, such as `public.jpeg`.
    public var identifier: String
    /// The identifiers this type conforms to directly (`UTTypeConformsTo`).
    public var conformsTo: [String]
    /// Filename extensions, without the dot (`public.filename-extension`). The first is preferred.
    public var filenameExtensions: [String]
    /// MIME types (`public.mime-type`). The first is preferred.
    public var mimeTypes: [String]
    /// A human-readable description (`UTTypeDescription`).
    public var description: String?
    /// A document that describes the type, for people (`UTTypeReferenceURL`), as written:
    /// like Apple, Appex doesn't check it.
    public var referenceURL: String?
    /// The type's version (`UTTypeVersion`); most types have none.
    public var version: Int?
    /// Whether the declaring bundle exports or imports the type. The built-in table is exported.
    public var kind: Kind

    /// Creates a declaration.
    public init(
        identifier: String,
        conformsTo: [String] = [],
        filenameExtensions: [String] = [],
        mimeTypes: [String] = [],
        description: String? = nil,
        referenceURL: String? = nil,
        version: Int? = nil,
        kind: Kind = .exported
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.description = description
        self.referenceURL = referenceURL
        self.version = version
        self.kind = kind
    }
}
