public import Foundation

/// An object that shows a file or folder to the user, and must hear when other code reads,
/// writes, moves or deletes it through ``NSFileCoordinator``: Apple's `NSFilePresenter`.
///
/// ```swift
/// final class NoteDocument: NSObject, NSFilePresenter {
///     var presentedItemURL: URL?
///     let presentedItemOperationQueue = OperationQueue()
///     func presentedItemDidChange() { reload() }
/// }
/// NSFileCoordinator.addFilePresenter(document)
/// ```
///
/// Register one with ``NSFileCoordinator/addFilePresenter(_:)`` and remove it before it
/// goes. Every message arrives on ``presentedItemOperationQueue``, apart from reads of
/// ``presentedItemURL``, which may come from any thread. Presenters in this process hear of
/// coordinations made in it (docs/app-groups.md, "File presenters").
///
/// Every member but the first two is optional, as in Apple's protocol, and does nothing
/// unless implemented.
public protocol NSFilePresenter: NSObjectProtocol {
    /// The item presented, kept up to date as it moves; nil while it does not exist yet.
    var presentedItemURL: URL? { get }
    /// The queue every message is sent on.
    var presentedItemOperationQueue: OperationQueue { get }

    /// The main item, when this presenter shows a secondary one such as a sidecar file.
    var primaryPresentedItemURL: URL? { get }
    /// Another coordinator is about to read the item: stop changing it, then call `reader`,
    /// with a block to run once the reader is done, or nil.
    func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void)
    /// Another coordinator is about to write the item: stop using it, then call `writer`,
    /// with a block to run once the writer is done, or nil.
    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void)
    /// Write unsaved changes to the item, then call `completionHandler` with nil or the error.
    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// Write unsaved changes to the item: the `async` form, which the default of the other calls.
    func savePresentedItemChanges() async throws
    /// The item is about to be deleted: let go of it, then call `completionHandler`.
    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// The item is about to be deleted: the `async` form.
    func accommodatePresentedItemDeletion() async throws
    /// The item is about to be evicted from local storage; nothing here evicts.
    func accommodatePresentedItemEviction(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// The item is about to be evicted: the `async` form.
    func accommodatePresentedItemEviction() async throws
    /// The item moved to `newURL`: update ``presentedItemURL``.
    func presentedItemDidMove(to newURL: URL)
    /// The item's contents or attributes changed.
    func presentedItemDidChange()
    /// Ubiquity attributes of the item that this presenter observes changed, as a
    /// coordinator's ``NSFileCoordinator/item(at:didChangeUbiquityAttributes:)`` says, in
    /// this process or another.
    func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>)
    /// The ubiquity attributes this presenter wants to hear of; by default, all of them.
    var observedPresentedItemUbiquityAttributes: Set<URLResourceKey> { get }
    /// An item inside the presented folder is about to be deleted.
    func accommodatePresentedSubitemDeletion(at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// An item inside the presented folder is about to be deleted: the `async` form.
    func accommodatePresentedSubitemDeletion(at url: URL) async throws
    /// An item appeared inside the presented folder.
    func presentedSubitemDidAppear(at url: URL)
    /// An item inside the presented folder moved.
    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL)
    /// The contents or attributes of an item inside the presented folder changed.
    func presentedSubitemDidChange(at url: URL)

    /// A version of the item was kept (``NSFileVersion/addOfItem(at:withContentsOf:options:)``).
    func presentedItemDidGain(_ version: NSFileVersion)
    /// A version of the item was let go (``NSFileVersion/remove()``).
    func presentedItemDidLose(_ version: NSFileVersion)
    /// A conflict version of the item was resolved; there are no conflicts here, as nothing
    /// syncs, so this never comes.
    func presentedItemDidResolveConflict(_ version: NSFileVersion)
    /// An item inside the presented folder gained a version.
    func presentedSubitem(at url: URL, didGain version: NSFileVersion)
    /// An item inside the presented folder lost a version.
    func presentedSubitem(at url: URL, didLose version: NSFileVersion)
    /// A conflict of an item inside the presented folder was resolved; never, as above.
    func presentedSubitem(at url: URL, didResolve version: NSFileVersion)
}

// The optional members: what an object that does not implement one does. Each message with
// a completion handler has an `async` form too, as Apple's have: an object implements either,
// and the completion handler's default calls the `async` form, whose default succeeds.
extension NSFilePresenter {
    public var primaryPresentedItemURL: URL? { nil }
    public func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) { reader(nil) }
    public func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) { writer(nil) }
    public func presentedItemDidMove(to newURL: URL) {}
    public func presentedItemDidChange() {}
    public func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>) {}
    /// Every ubiquity attribute, as Apple's presenter that doesn't implement the property
    /// observes: a marker that ``UbiquityNews`` reads as all of them.
    public var observedPresentedItemUbiquityAttributes: Set<URLResourceKey> { [UbiquityNews.everyAttribute] }
    public func presentedSubitemDidAppear(at url: URL) {}
    public func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) {}
    public func presentedSubitemDidChange(at url: URL) {}
    public func presentedItemDidGain(_ version: NSFileVersion) {}
    public func presentedItemDidLose(_ version: NSFileVersion) {}
    public func presentedItemDidResolveConflict(_ version: NSFileVersion) {}
    public func presentedSubitem(at url: URL, didGain version: NSFileVersion) {}
    public func presentedSubitem(at url: URL, didLose version: NSFileVersion) {}
    public func presentedSubitem(at url: URL, didResolve version: NSFileVersion) {}

    public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completing(completionHandler) { try await $0.savePresentedItemChanges() }
    }

    public func savePresentedItemChanges() async throws {}

    public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completing(completionHandler) { try await $0.accommodatePresentedItemDeletion() }
    }

    public func accommodatePresentedItemDeletion() async throws {}

    public func accommodatePresentedItemEviction(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completing(completionHandler) { try await $0.accommodatePresentedItemEviction() }
    }

    /// Not implementing eviction makes it fail, as Apple documents.
    public func accommodatePresentedItemEviction() async throws {
        throw CocoaError(.featureUnsupported)
    }

    public func accommodatePresentedSubitemDeletion(at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completing(completionHandler) { try await $0.accommodatePresentedSubitemDeletion(at: url) }
    }

    public func accommodatePresentedSubitemDeletion(at url: URL) async throws {}

    /// Runs the `async` form `body` on this presenter, then `completionHandler` with its error or nil.
    private func completing(_ completionHandler: @escaping @Sendable ((any Error)?) -> Void,
                            _ body: @escaping @Sendable (any NSFilePresenter) async throws -> Void) {
        // The presenter is used from its own queue's task only, as it would be from the queue.
        nonisolated(unsafe) let presenter: any NSFilePresenter = self
        Task {
            do {
                try await body(presenter)
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
    }
}
