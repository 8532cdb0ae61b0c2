/// The provider's name for an item, stable for the item's life; three names are the system's.
///
/// As on Apple's platforms, identifiers are opaque strings: the provider chooses them, and
/// the host never reads meaning into them, nor shows them as paths.
public struct NSFileProviderItemIdentifier: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The domain's top folder.
    public static let rootContainer = NSFileProviderItemIdentifier("NSFileProviderRootContainerItemIdentifier")
    /// The items the system keeps in step with the provider; enumerated for changes across
    /// the whole domain.
    public static let workingSet = NSFileProviderItemIdentifier("NSFileProviderWorkingSetContainerItemIdentifier")
    /// The parent of trashed items.
    public static let trashContainer = NSFileProviderItemIdentifier("NSFileProviderTrashContainerItemIdentifier")

    public var description: String { rawValue }
}
