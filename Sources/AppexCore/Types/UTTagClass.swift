/// A class of tags that map other naming systems to uniform types, as in Apple's `UTTagClass`.
public struct UTTagClass: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The tag class's identifier, such as `public.filename-extension`.
    public let rawValue: String

    /// Creates a tag class from its identifier.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Filename extensions, without the leading dot: `jpg`.
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
    /// MIME types: `image/jpeg`.
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")

    /// The tag class's identifier.
    public var description: String { rawValue }
}
