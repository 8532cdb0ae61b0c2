public import AppexCore
public import Foundation

/// An item of a provider's domain, a file or a folder, as the provider describes it.
///
/// Three properties are required. The others are optional on Apple's platforms, where the
/// system asks whether an item has them; here each has a default, and a conforming type's
/// own property of the same name and type is used instead.
public protocol NSFileProviderItemProtocol: NSObjectProtocol {
    var itemIdentifier: NSFileProviderItemIdentifier { get }
    /// ``NSFileProviderItemIdentifier/rootContainer`` for an item at the top of the domain.
    var parentItemIdentifier: NSFileProviderItemIdentifier { get }
    /// The item's name in its folder: not empty, and no `/`.
    var filename: String { get }

    /// What the item is: `.folder` for a folder; a file's type otherwise. Default `.data`.
    var contentType: UTType { get }
    /// Default: ``NSFileProviderItemCapabilities/allowsAll``.
    var capabilities: NSFileProviderItemCapabilities { get }
    /// Default: readable and writable by the user.
    var fileSystemFlags: NSFileProviderFileSystemFlags { get }
    /// A file's size in bytes, if known.
    var documentSize: NSNumber? { get }
    /// A folder's number of items, if known.
    var childItemCount: NSNumber? { get }
    var creationDate: Date? { get }
    var contentModificationDate: Date? { get }
    var extendedAttributes: [String: Data] { get }
    var lastUsedDate: Date? { get }
    var tagData: Data? { get }
    var favoriteRank: NSNumber? { get }
    /// Whether the item is at the top of the trash.
    var isTrashed: Bool { get }
    /// Whether the provider has the item's latest contents. An item not uploaded is never evicted.
    var isUploaded: Bool { get }
    var isUploading: Bool { get }
    var uploadingError: (any Error)? { get }
    var isDownloaded: Bool { get }
    var isDownloading: Bool { get }
    var downloadingError: (any Error)? { get }
    var isMostRecentVersionDownloaded: Bool { get }
    var isShared: Bool { get }
    var isSharedByCurrentUser: Bool { get }
    var ownerNameComponents: PersonNameComponents? { get }
    var mostRecentEditorNameComponents: PersonNameComponents? { get }
    /// Default: a version the provider never gave (``NSFileProviderItemVersion/init()``).
    var itemVersion: NSFileProviderItemVersion { get }
    /// A symbolic link's target, for an item of type `.symbolicLink`.
    var symlinkTargetPath: String? { get }
    /// The provider's own values: strings, numbers, booleans and dates only.
    var userInfo: [AnyHashable: Any]? { get }
}

/// An item, as Apple's Swift API names the protocol's existential.
public typealias NSFileProviderItem = NSFileProviderItemProtocol

extension NSFileProviderItemProtocol {
    public var contentType: UTType { .data }
    public var capabilities: NSFileProviderItemCapabilities { .allowsAll }
    public var fileSystemFlags: NSFileProviderFileSystemFlags { [.userReadable, .userWritable] }
    public var documentSize: NSNumber? { nil }
    public var childItemCount: NSNumber? { nil }
    public var creationDate: Date? { nil }
    public var contentModificationDate: Date? { nil }
    public var extendedAttributes: [String: Data] { [:] }
    public var lastUsedDate: Date? { nil }
    public var tagData: Data? { nil }
    public var favoriteRank: NSNumber? { nil }
    public var isTrashed: Bool { false }
    public var isUploaded: Bool { true }
    public var isUploading: Bool { false }
    public var uploadingError: (any Error)? { nil }
    public var isDownloaded: Bool { true }
    public var isDownloading: Bool { false }
    public var downloadingError: (any Error)? { nil }
    public var isMostRecentVersionDownloaded: Bool { true }
    public var isShared: Bool { false }
    public var isSharedByCurrentUser: Bool { false }
    public var ownerNameComponents: PersonNameComponents? { nil }
    public var mostRecentEditorNameComponents: PersonNameComponents? { nil }
    public var itemVersion: NSFileProviderItemVersion { NSFileProviderItemVersion() }
    public var symlinkTargetPath: String? { nil }
    public var userInfo: [AnyHashable: Any]? { nil }
}
