public import Foundation

/// Makes the enumerators of a domain's containers.
public protocol NSFileProviderEnumerating: NSObjectProtocol {
    /// The enumerator of `containerItemIdentifier`: a folder, ``NSFileProviderItemIdentifier/workingSet``,
    /// ``NSFileProviderItemIdentifier/trashContainer``, or one item, for changes to it alone.
    /// Throw ``NSFileProviderError/Code/noSuchItem`` for a container that is gone.
    func enumerator(for containerItemIdentifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest) throws -> any NSFileProviderEnumerator
}

/// A File Provider extension's principal class, in Apple's replicated model: the system
/// keeps a replica of the domain on disk, and calls the provider to fetch what the replica
/// lacks and to apply what changed in it.
///
/// One instance serves one domain, made with ``init(domain:)``. Calls may come concurrently.
/// Each returns a `Progress`; cancelling it asks the provider to stop and to call the
/// completion handler with `CocoaError(.userCancelled)`. Errors should be
/// ``NSFileProviderError``s or `CocoaError`s; any other is taken as passing, and retried.
public protocol NSFileProviderReplicatedExtension: NSFileProviderEnumerating {
    init(domain: NSFileProviderDomain)
    /// The system is done with this instance: let go of what it holds.
    func invalidate()
    /// The item's latest metadata. ``NSFileProviderError/Code/noSuchItem`` if it is gone.
    func item(for identifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest,
              completionHandler: @escaping ((any NSFileProviderItem)?, (any Error)?) -> Void) -> Progress
    /// The item's contents, as a file the provider wrote, which the system then owns, and the
    /// item as of those contents.
    func fetchContents(for itemIdentifier: NSFileProviderItemIdentifier, version requestedVersion: NSFileProviderItemVersion?,
                       request: NSFileProviderRequest,
                       completionHandler: @escaping (URL?, (any NSFileProviderItem)?, (any Error)?) -> Void) -> Progress
    /// An item made on this side, described by `itemTemplate` (its identifier the system's,
    /// temporary) with the `fields` it defines, and its contents at `url` (nil for a folder).
    /// Answers the created item with the provider's identifier, the fields still to apply,
    /// and whether the system should fetch the contents back.
    func createItem(basedOn itemTemplate: any NSFileProviderItem, fields: NSFileProviderItemFields, contents url: URL?,
                    options: NSFileProviderCreateItemOptions, request: NSFileProviderRequest,
                    completionHandler: @escaping ((any NSFileProviderItem)?, NSFileProviderItemFields, Bool, (any Error)?) -> Void) -> Progress
    /// A change made on this side to the `changedFields` of `item`, whose state was `version`
    /// before it. A provider whose own version moved on since resolves the conflict, and
    /// answers with the item as resolved.
    func modifyItem(_ item: any NSFileProviderItem, baseVersion version: NSFileProviderItemVersion, changedFields: NSFileProviderItemFields,
                    contents newContents: URL?, options: NSFileProviderModifyItemOptions, request: NSFileProviderRequest,
                    completionHandler: @escaping ((any NSFileProviderItem)?, NSFileProviderItemFields, Bool, (any Error)?) -> Void) -> Progress
    /// The item, deleted on this side. ``NSFileProviderError/Code/deletionRejected`` to keep
    /// it; success for an item the provider doesn't have.
    func deleteItem(identifier: NSFileProviderItemIdentifier, baseVersion version: NSFileProviderItemVersion,
                    options: NSFileProviderDeleteItemOptions, request: NSFileProviderRequest,
                    completionHandler: @escaping ((any Error)?) -> Void) -> Progress
}
