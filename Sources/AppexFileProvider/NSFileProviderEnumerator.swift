public import Foundation

/// Where an enumeration of a folder's items resumes: the provider's own bytes, at most 500.
public struct NSFileProviderPage: RawRepresentable, Hashable, Sendable {
    public let rawValue: Data

    public init(rawValue: Data) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: Data) {
        self.rawValue = rawValue
    }

    /// The first page, when the host would have items sorted by date.
    public static let initialPageSortedByDate = NSFileProviderPage(Data([0]))
    /// The first page, when the host would have items sorted by name.
    public static let initialPageSortedByName = NSFileProviderPage(Data([1]))
}

/// A point in a container's history, from which its changes are enumerated: the provider's
/// own bytes, at most 500.
public struct NSFileProviderSyncAnchor: RawRepresentable, Hashable, Sendable {
    public let rawValue: Data

    public init(rawValue: Data) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: Data) {
        self.rawValue = rawValue
    }
}

/// Lists a container's items, page by page, and its changes since a sync anchor.
public protocol NSFileProviderEnumerator: NSObjectProtocol {
    /// The system is done with the enumerator.
    func invalidate()
    /// Hands `observer` one page of items, starting at `page`, then finishes with the next
    /// page, or nil after the last.
    func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage)
    /// Hands `observer` what changed since `syncAnchor`, then finishes with the anchor of what
    /// it handed. Optional on Apple's platforms, and needed there as here to see changes; the
    /// default finishes with ``NSFileProviderError/Code/syncAnchorExpired``, so the host lists
    /// the container afresh.
    func enumerateChanges(for observer: any NSFileProviderChangeObserver, from syncAnchor: NSFileProviderSyncAnchor)
    /// The anchor of the container's present state. The default has none (nil).
    func currentSyncAnchor(completionHandler: @escaping @Sendable (NSFileProviderSyncAnchor?) -> Void)
}

extension NSFileProviderEnumerator {
    public func enumerateChanges(for observer: any NSFileProviderChangeObserver, from syncAnchor: NSFileProviderSyncAnchor) {
        observer.finishEnumeratingWithError(NSFileProviderError(.syncAnchorExpired))
    }

    public func currentSyncAnchor(completionHandler: @escaping @Sendable (NSFileProviderSyncAnchor?) -> Void) {
        completionHandler(nil)
    }
}

/// What an enumerator hands a page of items to. The host makes it.
public protocol NSFileProviderEnumerationObserver: NSObjectProtocol {
    func didEnumerate(_ updatedItems: [any NSFileProviderItemProtocol])
    /// The page is done; `nextPage` is where the next starts, nil after the last.
    func finishEnumerating(upTo nextPage: NSFileProviderPage?)
    func finishEnumeratingWithError(_ error: any Error)
    /// How many items the host would like in a page; it takes up to 100 times as many.
    var suggestedPageSize: Int { get }
}

/// What an enumerator hands changes to. The host makes it.
public protocol NSFileProviderChangeObserver: NSObjectProtocol {
    func didUpdate(_ updatedItems: [any NSFileProviderItemProtocol])
    func didDeleteItems(withIdentifiers deletedItemIdentifiers: [NSFileProviderItemIdentifier])
    /// The changes up to `anchor` are handed; `moreComing` if the enumerator has more past it.
    func finishEnumeratingChanges(upTo anchor: NSFileProviderSyncAnchor, moreComing: Bool)
    func finishEnumeratingWithError(_ error: any Error)
    /// How many changes the host would like in a batch; it takes up to 100 times as many.
    var suggestedBatchSize: Int { get }
}
