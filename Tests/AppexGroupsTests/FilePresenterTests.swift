import AppexCore
import AppexGroups
import AppexLocking
import AppexTesting
import Foundation
import Testing

/// File presenters in this process hear of its coordinations as Apple's do: asked to make
/// way before an access, in order and on their own queues, given their items back after,
/// and told what changed. Each presenter here writes down what it gets, and each accessor
/// writes "accessor" in the same list, so the order is the one that happened.
@Suite(.serialized, .timeLimit(.minutes(2))) final class FilePresenterTests {
    let container: TemporaryDirectory
    let folder: URL
    let file: URL
    private let presenters = RegisteredPresenters()

    init() throws {
        container = try TemporaryDirectory()
        try AppexHome.prepareContainer(at: container.url)
        folder = container.url.appendingPathComponent("Notes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        file = folder.appendingPathComponent("today.txt")
        try Data("first".utf8).write(to: file)
    }

    func presenter(of url: URL) -> RecordingPresenter {
        presenters.presenter(of: url)
    }

    func write(_ text: String, to url: URL, options: NSFileCoordinator.WritingOptions = [], by coordinator: NSFileCoordinator = NSFileCoordinator(),
               noting presenter: RecordingPresenter) -> NSError? {
        var error: NSError?
        coordinator.coordinate(writingItemAt: url, options: options, error: &error) { url in
            presenter.record("accessor")
            try? Data(text.utf8).write(to: url)
        }
        return error
    }

    // MARK: Writes

    @Test func aWriterWaitsForThePresenterToRelinquishItsItemWhichItGetsBackAndHearsChanged() {
        let presenter = presenter(of: file)
        #expect(write("second", to: file, noting: presenter) == nil)
        #expect(presenter.messages(count: 4) == ["relinquish to writer", "accessor", "reacquired from writer", "changed"])
    }

    @Test func aWriteThatChangesNothingIsNotToldAsAChange() {
        let presenter = presenter(of: file)
        var error: NSError?
        NSFileCoordinator().coordinate(writingItemAt: file, error: &error) { _ in presenter.record("accessor") }
        presenter.settle()
        #expect(presenter.messages == ["relinquish to writer", "accessor", "reacquired from writer"])
    }

    @Test func theCoordinatorMadeForAPresenterSendsItNothing() {
        let presenter = presenter(of: file)
        let other = self.presenter(of: file)
        #expect(write("second", to: file, by: NSFileCoordinator(filePresenter: presenter), noting: presenter) == nil)
        presenter.settle()
        #expect(presenter.messages == ["accessor"])
        #expect(other.messages(count: 3) == ["relinquish to writer", "reacquired from writer", "changed"])
    }

    @Test func aWriterThatMergesAsksThePresenterToSaveFirst() {
        let presenter = presenter(of: file)
        #expect(write("merged", to: file, options: .forMerging, noting: presenter) == nil)
        #expect(presenter.messages(count: 5) == ["save", "relinquish to writer", "accessor", "reacquired from writer", "changed"])
    }

    @Test func theFolderHearsOfAFileThatAppearsAndOfOneThatChanges() {
        let presenter = presenter(of: folder)
        #expect(write("new", to: folder.appendingPathComponent("tomorrow.txt"), noting: presenter) == nil)
        presenter.settle()
        #expect(write("second", to: file, noting: presenter) == nil)
        #expect(presenter.messages(count: 4) == ["accessor", "tomorrow.txt appeared", "accessor", "today.txt changed"])
    }

    @Test func aPresenterRemovedOrGoneHearsNothing() {
        let removed = presenter(of: file)
        NSFileCoordinator.removeFilePresenter(removed)
        var gone: RecordingPresenter? = RecordingPresenter(file)
        NSFileCoordinator.addFilePresenter(gone!)
        weak let goneLater = gone
        gone = nil
        #expect(goneLater == nil, "the table holds presenters weakly")
        #expect(!NSFileCoordinator.filePresenters.contains { $0 === removed })
        #expect(write("second", to: file, noting: removed) == nil)
        removed.settle()
        #expect(removed.messages == ["accessor"])
    }

    // MARK: Reads

    @Test func aReaderAsksThePresenterToSaveAndRelinquishUnlessWithoutChanges() {
        let presenter = presenter(of: file)
        var error: NSError?
        NSFileCoordinator().coordinate(readingItemAt: file, error: &error) { _ in presenter.record("accessor") }
        presenter.settle()
        NSFileCoordinator().coordinate(readingItemAt: file, options: .withoutChanges, error: &error) { _ in presenter.record("accessor") }
        presenter.settle()
        #expect(error == nil)
        #expect(presenter.messages == [
            "save", "relinquish to reader", "accessor", "reacquired from reader",
            "relinquish to reader", "accessor", "reacquired from reader",
        ])
    }

    @Test func aPresenterThatCantSaveFailsTheReadWithItsErrorAndGetsItsItemBack() throws {
        let presenter = presenter(of: file)
        presenter.saveError.withLock { $0 = CocoaError(.fileWriteOutOfSpace) }
        var error: NSError?
        var ran = false
        NSFileCoordinator().coordinate(readingItemAt: file, options: [], writingItemAt: container.url.appendingPathComponent("copy.txt"),
                                       error: &error) { _, _ in ran = true }
        #expect(!ran)
        let failure = try #require(error)
        #expect(failure.code == CocoaError.fileWriteUnknown.rawValue)
        #expect((failure.userInfo[NSUnderlyingErrorKey] as? CocoaError)?.code == .fileWriteOutOfSpace)
        #expect(failure.localizedDescription.contains("could not make way"), "\(failure.localizedDescription)")
        presenter.settle()
        #expect(presenter.messages == ["save"], "a failed save asks nothing more")
    }

    // MARK: Deletion and moves

    @Test func aDeletionIsAccommodatedByTheItemsPresenterAndTheFolders() {
        let filePresenter = presenter(of: file)
        let folderPresenter = presenter(of: folder)
        var error: NSError?
        NSFileCoordinator().coordinate(writingItemAt: file, options: .forDeleting, error: &error) { url in
            filePresenter.record("accessor")
            try? FileManager.default.removeItem(at: url)
        }
        filePresenter.settle()
        folderPresenter.settle()
        #expect(error == nil)
        #expect(filePresenter.messages == ["relinquish to writer", "accommodate deletion", "accessor", "reacquired from writer"])
        #expect(folderPresenter.messages == ["accommodate deletion of today.txt"])
    }

    @Test func deletingAFolderAsksThePresentersOfWhatIsInsideIt() {
        let filePresenter = presenter(of: file)
        var error: NSError?
        NSFileCoordinator().coordinate(writingItemAt: folder, options: .forDeleting, error: &error) { url in
            try? FileManager.default.removeItem(at: url)
        }
        filePresenter.settle()
        #expect(filePresenter.messages == ["relinquish to writer", "accommodate deletion", "reacquired from writer"])
    }

    @Test func aMoveIsToldToTheItemsPresenterWhichFollowsItAndToTheFolder() throws {
        let filePresenter = presenter(of: file)
        let folderPresenter = presenter(of: folder)
        let destination = folder.appendingPathComponent("archived.txt")
        var error: NSError?
        let coordinator = NSFileCoordinator()
        coordinator.coordinate(writingItemAt: file, options: .forMoving, writingItemAt: destination, options: .forReplacing, error: &error) { from, to in
            try? FileManager.default.moveItem(at: from, to: to)
            coordinator.item(at: from, didMoveTo: to)
        }
        #expect(error == nil)
        #expect(filePresenter.messages(count: 3) == ["relinquish to writer", "moved to archived.txt", "reacquired from writer"])
        #expect(filePresenter.presentedItemURL?.lastPathComponent == "archived.txt")
        folderPresenter.settle()
        #expect(folderPresenter.messages == ["accommodate deletion of archived.txt", "today.txt moved to archived.txt"])
    }

    // MARK: Waiting, cancelling

    @Test func cancellingACoordinatorThatWaitsForAnotherEndsItsWaitWithUserCancelled() throws {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let file = self.file
        let holder = Thread {
            NSFileCoordinator().coordinate(writingItemAt: file, error: nil) { _ in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()
        let coordinator = NSFileCoordinator()
        nonisolated(unsafe) let waiting = coordinator
        let result = BackgroundWork { () -> (ran: Bool, error: NSError?) in
            var error: NSError?
            var ran = false
            waiting.coordinate(readingItemAt: file, error: &error) { _ in ran = true }
            return (ran, error)
        }
        usleep(200_000)
        #expect(!result.hasEnded, "it waits for the writer")
        coordinator.cancel()
        let (ran, error) = try #require(result.value())
        #expect(!ran)
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == CocoaError.userCancelled.rawValue, "\(String(describing: error))")
        release.signal()
        // The abandoned wait lets the lock go once it comes: the next reader gets in.
        var next: NSError?
        var read = false
        NSFileCoordinator().coordinate(readingItemAt: file, error: &next) { _ in read = true }
        #expect(read && next == nil)
    }

    @Test func cancellingWhileAPresenterHoldsOnEndsTheWaitAndItsItemComesBackWhenItAnswers() throws {
        let presenter = presenter(of: file)
        presenter.holdsWriter.withLock { $0 = true }
        let coordinator = NSFileCoordinator()
        nonisolated(unsafe) let waiting = coordinator
        let file = self.file
        let result = BackgroundWork { () -> NSError? in
            var error: NSError?
            waiting.coordinate(writingItemAt: file, error: &error) { _ in presenter.record("accessor") }
            return error
        }
        #expect(presenter.messages(count: 1) == ["relinquish to writer"])
        coordinator.cancel()
        #expect(result.value()??.code == CocoaError.userCancelled.rawValue)
        presenter.answerHeldWriter()
        #expect(presenter.messages(count: 2) == ["relinquish to writer", "reacquired from writer"], "the late reacquirer ran at once")
    }

    @Test func theAsynchronousFormAsksThePresentersToo() async throws {
        let presenter = presenter(of: file)
        let queue = OperationQueue()
        let file = self.file
        let error: (any Error)? = await withCheckedContinuation { continuation in
            NSFileCoordinator().coordinate(with: [.writingIntent(with: file)], queue: queue) { error in
                presenter.record("accessor")
                try? Data("async".utf8).write(to: file)
                continuation.resume(returning: error)
            }
        }
        #expect(error == nil)
        #expect(presenter.messages(count: 4) == ["relinquish to writer", "accessor", "reacquired from writer", "changed"])
    }

    @Test func aBatchAsksThePresentersOnceAndHoldsItsItemsUntilItsCompletion() throws {
        let presenter = presenter(of: file)
        let coordinator = NSFileCoordinator()
        var error: NSError?
        nonisolated(unsafe) var finish: (@Sendable () -> Void)?
        coordinator.prepare(forReadingItemsAt: [file], writingItemsAt: [], error: &error) { completion in
            coordinator.coordinate(readingItemAt: file, error: nil) { _ in presenter.record("accessor") }
            finish = completion
        }
        #expect(error == nil)
        presenter.settle()
        #expect(presenter.messages == ["save", "relinquish to reader", "accessor"], "asked once, for the batch")
        // A writer waits for the batch: it is let go only by its completion.
        let writing = BackgroundWork { [file] in
            NSFileCoordinator(filePresenter: presenter).coordinate(writingItemAt: file, error: nil) { _ in presenter.record("writer") }
            return true
        }
        usleep(200_000)
        #expect(!presenter.messages.contains("writer"))
        finish?()
        #expect(writing.value() == true)
        // The reacquirer runs once the batch lets go, as the writer may then begin.
        #expect(Set(presenter.messages(count: 5).suffix(2)) == ["reacquired from reader", "writer"])
    }

    // MARK: Apple's shapes

    @Test func purposeIdentifiersAreUniqueAndSharedByAPresentersCoordinators() {
        let presenter = RecordingPresenter(file)
        #expect(NSFileCoordinator().purposeIdentifier != NSFileCoordinator().purposeIdentifier)
        #expect(NSFileCoordinator(filePresenter: presenter).purposeIdentifier == NSFileCoordinator(filePresenter: presenter).purposeIdentifier)
        let coordinator = NSFileCoordinator()
        coordinator.purposeIdentifier = "com.example.notes.sync"
        #expect(coordinator.purposeIdentifier == "com.example.notes.sync")
    }

    @Test func aPresenterThatSavesInTheAsyncFormIsAskedThroughIt() {
        final class AsyncSaver: NSObject, NSFilePresenter, @unchecked Sendable {
            let presentedItemURL: URL?
            let presentedItemOperationQueue = OperationQueue()
            let saved = Locked(false)
            init(_ url: URL) { presentedItemURL = url }
            func savePresentedItemChanges() async throws { saved.withLock { $0 = true } }
        }
        let saver = AsyncSaver(file)
        NSFileCoordinator.addFilePresenter(saver)
        defer { NSFileCoordinator.removeFilePresenter(saver) }
        var error: NSError?
        var savedFirst = false
        NSFileCoordinator().coordinate(readingItemAt: file, error: &error) { _ in savedFirst = saver.saved.withLock { $0 } }
        #expect(error == nil && savedFirst)
    }
}
