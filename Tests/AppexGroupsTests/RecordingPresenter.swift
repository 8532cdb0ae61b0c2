import AppexGroups
import AppexLocking
import Foundation

/// A file presenter that writes down every message it gets, in order, on its own serial
/// queue, and answers as a test asks: at once, with an error, or not until told.
final class RecordingPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    private let item = Locked<URL?>(nil)
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    private let log = Locked<[String]>([])
    private let arrived = DispatchSemaphore(value: 0)

    /// The error `savePresentedItemChanges` answers with, if any.
    let saveError = Locked<(any Error)?>(nil)
    /// The ubiquity attributes it observes.
    let observed = Locked<Set<URLResourceKey>>([])
    /// Whether `relinquishPresentedItem(toWriter:)` waits for ``answerHeldWriter()``.
    let holdsWriter = Locked(false)
    private let heldWriter = Locked<(@Sendable ((@Sendable () -> Void)?) -> Void)?>(nil)

    init(_ url: URL?) {
        item.withLock { $0 = url }
    }

    var presentedItemURL: URL? { item.withLock { $0 } }

    /// The messages so far.
    var messages: [String] { log.withLock { $0 } }

    /// Waits until `count` messages have come, or 10 s; returns them.
    func messages(count: Int) -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while messages.count < count, Date() < deadline { _ = arrived.wait(timeout: .now() + .milliseconds(50)) }
        return messages
    }

    /// Waits until the queue has run everything sent to it so far.
    func settle() {
        presentedItemOperationQueue.addOperation {}
        presentedItemOperationQueue.waitUntilAllOperationsAreFinished()
    }

    func record(_ message: String) {
        log.withLock { $0.append(message) }
        arrived.signal()
    }

    /// Answers the writer that ``holdsWriter`` kept waiting.
    func answerHeldWriter() {
        let writer = heldWriter.withLock { writer in defer { writer = nil }; return writer }
        writer? { self.record("reacquired from writer") }
    }

    func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        record("relinquish to reader")
        reader { self.record("reacquired from reader") }
    }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        // Kept before it is written down, so a test that sees it may answer it.
        if holdsWriter.withLock({ $0 }) {
            heldWriter.withLock { $0 = writer }
            record("relinquish to writer")
        } else {
            record("relinquish to writer")
            writer { self.record("reacquired from writer") }
        }
    }

    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        record("save")
        completionHandler(saveError.withLock { $0 })
    }

    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        record("accommodate deletion")
        completionHandler(nil)
    }

    func presentedItemDidMove(to newURL: URL) {
        record("moved to \(newURL.lastPathComponent)")
        item.withLock { $0 = newURL }
    }

    func presentedItemDidChange() {
        record("changed")
    }

    func accommodatePresentedSubitemDeletion(at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        record("accommodate deletion of \(url.lastPathComponent)")
        completionHandler(nil)
    }

    func presentedSubitemDidAppear(at url: URL) {
        record("\(url.lastPathComponent) appeared")
    }

    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) {
        record("\(oldURL.lastPathComponent) moved to \(newURL.lastPathComponent)")
    }

    func presentedSubitemDidChange(at url: URL) {
        record("\(url.lastPathComponent) changed")
    }

    func presentedItemDidGain(_ version: NSFileVersion) {
        record("gained \(version.localizedName ?? "")")
    }

    var observedPresentedItemUbiquityAttributes: Set<URLResourceKey> { observed.withLock { $0 } }

    func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>) {
        record("ubiquity \(attributes.map(\.rawValue).sorted().joined(separator: " "))")
    }

    func presentedItemDidLose(_ version: NSFileVersion) {
        record("lost \(version.localizedName ?? "")")
    }

    func presentedSubitem(at url: URL, didGain version: NSFileVersion) {
        record("\(url.lastPathComponent) gained a version")
    }

    func presentedSubitem(at url: URL, didLose version: NSFileVersion) {
        record("\(url.lastPathComponent) lost a version")
    }
}

/// The presenters a test registered, removed when it ends.
final class RegisteredPresenters {
    private var registered: [RecordingPresenter] = []

    /// A recording presenter of `url`, registered.
    func presenter(of url: URL) -> RecordingPresenter {
        let presenter = RecordingPresenter(url)
        NSFileCoordinator.addFilePresenter(presenter)
        registered.append(presenter)
        return presenter
    }

    deinit {
        for presenter in registered { NSFileCoordinator.removeFilePresenter(presenter) }
    }
}
