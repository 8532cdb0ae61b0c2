import AppexCore
public import AppexFileProvider
public import Foundation

/// An item as a provider answered it, copied out of the provider's object: what the replica
/// keeps, and what crosses from an extension's process to the host.
public struct ProviderItem: Sendable, Hashable {
    public var identifier: NSFileProviderItemIdentifier
    public var parent: NSFileProviderItemIdentifier
    public var filename: String
    public var isFolder: Bool
    /// A file's size in bytes; 0 for a folder, or when the provider doesn't say.
    public var size: UInt64
    public var created: Date?
    public var modified: Date?
    public var contentVersion: Data
    public var metadataVersion: Data
    public var capabilities: NSFileProviderItemCapabilities

    public init(identifier: NSFileProviderItemIdentifier, parent: NSFileProviderItemIdentifier, filename: String, isFolder: Bool,
                size: UInt64 = 0, created: Date? = nil, modified: Date? = nil, contentVersion: Data = Data(), metadataVersion: Data = Data(),
                capabilities: NSFileProviderItemCapabilities = .allowsAll) {
        self.identifier = identifier
        self.parent = parent
        self.filename = filename
        self.isFolder = isFolder
        self.size = size
        self.created = created
        self.modified = modified
        self.contentVersion = contentVersion
        self.metadataVersion = metadataVersion
        self.capabilities = capabilities
    }

    /// Copies what the host needs of `item`.
    public init(_ item: any NSFileProviderItem) {
        let isFolder = item.contentType.conforms(to: .folder)
        self.init(identifier: item.itemIdentifier, parent: item.parentItemIdentifier, filename: item.filename, isFolder: isFolder,
                  size: isFolder ? 0 : UInt64(max(0, item.documentSize?.int64Value ?? 0)),
                  created: item.creationDate, modified: item.contentModificationDate,
                  contentVersion: item.itemVersion.contentVersion, metadataVersion: item.itemVersion.metadataVersion,
                  capabilities: item.capabilities)
    }
}

/// One page of a folder's listing, and where the next starts (nil after the last).
public struct ProviderPage: Sendable {
    public var items: [ProviderItem]
    public var next: NSFileProviderPage?

    public init(items: [ProviderItem], next: NSFileProviderPage?) {
        self.items = items
        self.next = next
    }
}

/// What the replica asks of a domain's provider: the calls of `NSFileProviderReplicatedExtension`,
/// made async. In the extension's process they reach the principal class itself
/// (``InProcessProvider``).
public protocol ProviderCalls: Sendable {
    /// The domain whose items these are.
    var domain: NSFileProviderDomainIdentifier { get }
    func item(_ identifier: NSFileProviderItemIdentifier) async throws -> ProviderItem
    /// One page of `container`'s items, from `page`.
    func page(of container: NSFileProviderItemIdentifier, from page: NSFileProviderPage) async throws -> ProviderPage
    /// The item's contents, in a file the caller now owns, and the item as of those contents.
    func fetchContents(of identifier: NSFileProviderItemIdentifier) async throws -> (contents: URL, item: ProviderItem)
    /// An item made here: `template` carries a temporary identifier, and `fields` say which of
    /// its fields are set; `contents` (nil for a folder) is valid until the call returns.
    func create(_ template: ProviderItem, fields: NSFileProviderItemFields, contents: URL?) async throws -> ProviderChange
    /// A change made here to `changedFields` of `item`, whose state the provider last gave as
    /// `baseVersion`; `contents` is valid until the call returns.
    func modify(_ item: ProviderItem, baseVersion: NSFileProviderItemVersion, changedFields: NSFileProviderItemFields,
                contents: URL?) async throws -> ProviderChange
    /// The item, deleted here (a folder with what was in it).
    func delete(_ identifier: NSFileProviderItemIdentifier, baseVersion: NSFileProviderItemVersion) async throws
}

/// A provider's answer to a creation or change: the item as it now stands there (nil if the
/// provider deleted it), the fields it has not applied yet, and whether its contents differ
/// from what was sent, so that the replica fetches them.
public struct ProviderChange: Sendable {
    public var item: ProviderItem?
    public var stillPending: NSFileProviderItemFields
    public var shouldFetchContents: Bool

    public init(item: ProviderItem?, stillPending: NSFileProviderItemFields = [], shouldFetchContents: Bool = false) {
        self.item = item
        self.stillPending = stillPending
        self.shouldFetchContents = shouldFetchContents
    }
}

/// A ``ProviderItem`` handed to a provider as an `NSFileProviderItem`: a template to create,
/// or an item's new state.
final class ProvidedItem: NSObject, NSFileProviderItem {
    let item: ProviderItem

    init(_ item: ProviderItem) {
        self.item = item
    }

    var itemIdentifier: NSFileProviderItemIdentifier { item.identifier }
    var parentItemIdentifier: NSFileProviderItemIdentifier { item.parent }
    var filename: String { item.filename }
    var contentType: UTType { item.isFolder ? .folder : .data }
    var capabilities: NSFileProviderItemCapabilities { item.capabilities }
    var documentSize: NSNumber? { item.isFolder ? nil : NSNumber(value: item.size) }
    var creationDate: Date? { item.created }
    var contentModificationDate: Date? { item.modified }
    var itemVersion: NSFileProviderItemVersion {
        NSFileProviderItemVersion(contentVersion: item.contentVersion, metadataVersion: item.metadataVersion)
    }
}
