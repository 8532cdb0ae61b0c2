import AppexGroups
import Foundation
import Synchronization

// The presenter commands of the helper (main.swift): the other process of a cross-process
// file presenter test.

/// A presenter that prints each message it gets as a line, and answers as `mode` says:
/// `answer` at once, `hold` never relinquishing to a writer, `fail-save` failing each save.
final class PrintingPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    private let url: Mutex<URL?>
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    let mode: String

    init(_ url: URL, mode: String) {
        self.url = Mutex(url)
        self.mode = mode
    }

    var presentedItemURL: URL? { url.withLock { $0 } }

    func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        say("relinquish to reader")
        reader { say("reacquired from reader") }
    }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        say("relinquish to writer")
        guard mode != "hold" else { return }
        writer { say("reacquired from writer") }
    }

    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        say("save")
        completionHandler(mode == "fail-save" ? CocoaError(.fileWriteOutOfSpace, userInfo: [NSLocalizedDescriptionKey: "the disk is full"]) : nil)
    }

    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        say("accommodate deletion")
        completionHandler(nil)
    }

    func presentedItemDidMove(to newURL: URL) {
        say("moved to \(newURL.lastPathComponent)")
        url.withLock { $0 = newURL }
    }

    func presentedItemDidChange() {
        say("changed")
    }

    // It observes every ubiquity attribute: it leaves `observedPresentedItemUbiquityAttributes` as it is.
    func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>) {
        say("ubiquity \(attributes.map(\.rawValue).sorted().joined(separator: " "))")
    }

    func presentedSubitemDidAppear(at url: URL) {
        say("\(url.lastPathComponent) appeared")
    }

    func presentedSubitemDidChange(at url: URL) {
        say("\(url.lastPathComponent) changed")
    }

    func presentedItemDidGain(_ version: NSFileVersion) {
        // What the version holds, read from its file, as a presenter of a document would.
        let contents = (try? String(contentsOf: version.url, encoding: .utf8)) ?? "unreadable"
        say("gained \(version.localizedName ?? "") \(contents)")
    }

    func presentedItemDidLose(_ version: NSFileVersion) {
        say("lost \(version.localizedName ?? "")")
    }
}

/// `add-version ITEM TEXT`: keeps TEXT as a version of ITEM, in a coordinated write of it,
/// then prints "added", or the error.
func addVersion(_ path: String, _ text: String) {
    let item = URL(fileURLWithPath: path)
    var failure: (any Error)?
    var error: NSError?
    NSFileCoordinator().coordinate(writingItemAt: item, error: &error) { url in
        do {
            let contents = NSFileVersion.temporaryDirectoryURLForNewVersionOfItem(at: url).appendingPathComponent("contents")
            try Data(text.utf8).write(to: contents)
            _ = try NSFileVersion.addOfItem(at: url, withContentsOf: contents, options: .byMoving)
        } catch {
            failure = error
        }
    }
    say((failure ?? error).map { "error: \($0.localizedDescription)" } ?? "added")
}

/// `present ITEM MODE`: presents ITEM until killed, printing what it hears.
func present(_ path: String, mode: String) -> Never {
    let presenter = PrintingPresenter(URL(fileURLWithPath: path), mode: mode)
    NSFileCoordinator.addFilePresenter(presenter)
    say("presenting")
    while true { pause() }
}

/// `coordinated-write FILE TEXT`: writes TEXT to FILE in a coordinated write, then prints
/// "written", or the error.
func coordinatedWriteOnce(_ path: String, _ text: String) {
    var error: NSError?
    NSFileCoordinator().coordinate(writingItemAt: URL(fileURLWithPath: path), error: &error) { url in
        try? Data(text.utf8).write(to: url)
    }
    say(error.map { "error: \($0.localizedDescription)" } ?? "written")
}
