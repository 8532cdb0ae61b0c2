/// One uniform type declaration, in the shape of an `UTExportedTypeDeclarations` entry.
public struct UTTypeDeclaration: Sendable, Hashable {
    /// The type's identifier, such as `public.jpeg`.
    public var identifier: String
    /// The identifiers this type conforms to directly (`UTTypeConformsTo`).
    public var conformsTo: [String]
    /// Filename extensions, without the dot (`public.filename-extension`).
    public var filenameExtensions: [String]
    /// MIME types (`public.mime-type`).
    public var mimeTypes: [String]
    /// A human-readable description (`UTTypeDescription`).
    public var description: String?

    public init(
        identifier: String,
        conformsTo: [String] = [],
        filenameExtensions: [String] = [],
        mimeTypes: [String] = [],
        description: String? = nil
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.description = description
    }
}
