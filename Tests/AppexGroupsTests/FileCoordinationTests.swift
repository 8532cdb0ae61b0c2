import AppexCore
import AppexGroups
import AppexLocking
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// `NSFileCoordinator` between threads of this process and between processes, in a folder
/// made as appexd makes a container, so it is a coordination root.
@Suite(.timeLimit(.minutes(2))) final class FileCoordinationTests {
    let container: TemporaryDirectory
    let file: URL

    init() throws {
        container = try TemporaryDirectory()
        try AppexHome.prepareContainer(at: container.url)
        file = container.url.appendingPathComponent("notes.txt")
        try Data("0".utf8).write(to: file)
    }

    // MARK: Between threads

    @Test func aReaderWaitsForTheWriterToFinish() throws {
        let order = try accessWhileHolding(.writing(file), then: .reading(file))
        #expect(order == ["first in", "first out", "second in"])
    }

    @Test func aWriterWaitsForTheReaderToFinish() throws {
        let order = try accessWhileHolding(.reading(file), then: .writing(file))
        #expect(order == ["first in", "first out", "second in"])
    }

    @Test func readersOfOneFileDoNotWaitForEachOther() throws {
        let order = try accessWhileHolding(.reading(file), then: .reading(file))
        #expect(order == ["first in", "second in", "first out"])
    }

    @Test func writersOfTwoFilesDoNotWaitForEachOther() throws {
        let other = container.url.appendingPathComponent("other.txt")
        let order = try accessWhileHolding(.writing(file), then: .writing(other))
        #expect(order == ["first in", "second in", "first out"])
    }

    @Test func aFolderWriteWaitsForAReadInsideItAndTheOtherWayRound() throws {
        let folder = try makeFolder("Drafts")
        let inside = folder.appendingPathComponent("draft.txt")
        #expect(try accessWhileHolding(.reading(inside), then: .writing(folder)) == ["first in", "first out", "second in"])
        #expect(try accessWhileHolding(.writing(folder), then: .reading(inside)) == ["first in", "first out", "second in"])
    }

    @Test func aFolderReadWaitsForAWriteInsideItButNotForAReadInsideIt() throws {
        let folder = try makeFolder("Drafts")
        let inside = folder.appendingPathComponent("draft.txt")
        #expect(try accessWhileHolding(.writing(inside), then: .reading(folder)) == ["first in", "first out", "second in"])
        #expect(try accessWhileHolding(.reading(inside), then: .reading(folder)) == ["first in", "second in", "first out"])
    }

    @Test func coordinatingAgainInsideTheAccessorWithTheSameCoordinatorDoesNotWaitForItself() {
        let coordinator = NSFileCoordinator()
        var outer, middle, inner: NSError?
        var reached = false
        coordinator.coordinate(readingItemAt: file, error: &outer) { url in
            coordinator.coordinate(writingItemAt: url, error: &middle) { _ in
                coordinator.coordinate(readingItemAt: url, error: &inner) { _ in reached = true }
            }
        }
        #expect(outer == nil && middle == nil && inner == nil)
        #expect(reached)
        // And it let go of everything when the outermost accessor returned.
        #expect((try? accessWhileHolding(.writing(file), then: .writing(file))) == ["first in", "first out", "second in"])
    }

    @Test func readingAndWritingTwoItemsAtOnceNeverDeadlocks() async throws {
        let other = container.url.appendingPathComponent("other.txt")
        try Data("0".utf8).write(to: other)
        // Each task reads one and writes the other, the two crosswise, many times.
        await withTaskGroup(of: Void.self) { group in
            for (reading, writing) in [(file, other), (other, file)] {
                group.addTask {
                    for _ in 0..<300 {
                        NSFileCoordinator().coordinate(readingItemAt: reading, writingItemAt: writing, error: nil) { _, written in
                            _ = try? Data(contentsOf: written)
                        }
                    }
                }
            }
        }
    }

    @Test func theAsynchronousFormRunsOnTheQueueOnceGranted() async throws {
        let queue = OperationQueue()
        let error: (any Error)? = await withCheckedContinuation { continuation in
            NSFileCoordinator().coordinate(with: [.writingIntent(with: file), .readingIntent(with: container.url)], queue: queue) { error in
                #expect(OperationQueue.current === queue)
                continuation.resume(returning: error)
            }
        }
        #expect(error == nil)
    }

    // MARK: Between processes

    @Test func twoProcessesAddingToOneFileLoseNothing() throws {
        let helper = try GroupsHelper(["coordinated-add", file.path, "1000"])
        let coordinator = NSFileCoordinator()
        for _ in 0..<1000 {
            coordinator.coordinate(writingItemAt: file, error: nil) { url in
                let number = Int((try? String(contentsOf: url, encoding: .utf8)) ?? "") ?? -100_000
                // Truncate, then write: a reader that did not wait could see it empty.
                let handle = FileHandle(forWritingAtPath: url.path)
                handle?.truncateFile(atOffset: 0)
                handle?.write(Data(String(number + 1).utf8))
                handle?.closeFile()
            }
        }
        #expect(helper.nextLine() == "done")
        #expect(helper.finish() == .exited(0))
        #expect(try String(contentsOf: file, encoding: .utf8) == "2000")
    }

    @Test func aReaderNeverSeesAFileAnotherProcessHasHalfWritten() throws {
        let size = 256 * 1024
        try Data(repeating: 0, count: size).write(to: file)
        let helper = try GroupsHelper(["coordinated-fill", file.path, "200", "\(size)"])
        #expect(helper.nextLine() == "started")
        var reads = 0
        var torn = 0
        repeat {
            NSFileCoordinator().coordinate(readingItemAt: file, error: nil) { url in
                let contents = (try? Data(contentsOf: url)) ?? Data()
                reads += 1
                if contents.count != size || contents.contains(where: { $0 != contents.first }) { torn += 1 }
            }
        } while !helper.process.waitForExit(timeoutMilliseconds: 0)
        #expect(helper.finish() == .exited(0))
        #expect(reads > 0)
        #expect(torn == 0, "\(torn) of \(reads) reads saw a file half written")
    }

    @Test func aWriterThatDiesHoldingItsWriteBlocksNoOne() async throws {
        let helper = try GroupsHelper(["hold-write", file.path])
        #expect(helper.nextLine() == "holding")
        let granted = Locked(false)
        let queue = OperationQueue()
        let file = self.file
        let reading: Task<(any Error)?, Never> = Task {
            await withCheckedContinuation { continuation in
                NSFileCoordinator().coordinate(with: [.readingIntent(with: file)], queue: queue) { error in
                    granted.withLock { $0 = true }
                    continuation.resume(returning: error)
                }
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(!granted.withLock { $0 }, "no read while another process writes")
        helper.kill()
        #expect(await reading.value == nil)
        #expect(granted.withLock { $0 })
    }

    // MARK: Purposes

    @Test func coordinatorsOfOnePurposeNeverWaitForEachOther() throws {
        #expect(try accessWhileHolding(.writing(file, purpose: "sync"), then: .writing(file, purpose: "sync")) == ["first in", "second in", "first out"])
        #expect(try accessWhileHolding(.reading(file, purpose: "sync"), then: .writing(file, purpose: "sync")) == ["first in", "second in", "first out"])
        #expect(try accessWhileHolding(.writing(file, purpose: "sync"), then: .reading(file, purpose: "sync")) == ["first in", "second in", "first out"])
        #expect(try accessWhileHolding(.writing(file, purpose: "sync"), then: .writing(file, purpose: "other")) == ["first in", "first out", "second in"])
    }

    @Test func coordinatorsMadeForOnePresenterShareItsPurposeAndDoNotWaitForEachOther() throws {
        let presenter = RecordingPresenter(file)
        let first = NSFileCoordinator(filePresenter: presenter)
        nonisolated(unsafe) let second = NSFileCoordinator(filePresenter: presenter)
        #expect(first.purposeIdentifier == second.purposeIdentifier)
        var error: NSError?
        var inner = false
        let file = file
        first.coordinate(writingItemAt: file, error: &error) { _ in
            let nested = BackgroundWork { () -> Bool in
                var error: NSError?
                var ran = false
                second.coordinate(writingItemAt: file, error: &error) { _ in ran = true }
                return ran
            }
            inner = nested.value(within: 10) == true
        }
        #expect(error == nil)
        #expect(inner, "the second coordinator wrote while the first held the write")
    }

    /// Another purpose waits until every access of the purpose has ended, however the
    /// purpose's accesses overlapped: two reads, and a read that a write of the purpose
    /// made stronger.
    @Test func anotherPurposeWaitsForEveryAccessOfThePurpose() throws {
        let firstRead = HeldAccess(.reading(file, purpose: "sync"))
        let secondRead = HeldAccess(.reading(file, purpose: "sync"))
        #expect(firstRead.isIn(within: 10) && secondRead.isIn(within: 10))
        let writer = HeldAccess(.writing(file, purpose: "other"))
        #expect(!writer.isIn(within: 0.3))
        firstRead.end()
        #expect(!writer.isIn(within: 0.3), "one read of the purpose still holds the file")
        secondRead.end()
        #expect(writer.isIn(within: 10))
        writer.end()

        let read = HeldAccess(.reading(file, purpose: "sync"))
        let write = HeldAccess(.writing(file, purpose: "sync"))
        #expect(read.isIn(within: 10) && write.isIn(within: 10))
        read.end()
        let reader = HeldAccess(.reading(file, purpose: "other"))
        #expect(!reader.isIn(within: 0.3), "the purpose still writes")
        write.end()
        #expect(reader.isIn(within: 10))
        reader.end()
    }

    /// A coordination of the purpose that gave up waiting for a byte leaves nothing locked
    /// once the byte comes, though another access keeps the purpose's lock file open.
    @Test func aCancelledWaitOfAPurposeLeavesNoLockBehind() throws {
        let other = container.url.appendingPathComponent("other.txt")
        let keeper = HeldAccess(.reading(other, purpose: "sync"))
        #expect(keeper.isIn(within: 10))
        let holder = HeldAccess(.writing(file, purpose: "holder"))
        #expect(holder.isIn(within: 10))
        nonisolated(unsafe) let coordinator = NSFileCoordinator()
        coordinator.purposeIdentifier = "sync"
        let file = file
        let waiting = BackgroundWork { () -> Int in
            var error: NSError?
            coordinator.coordinate(writingItemAt: file, error: &error) { _ in }
            return error?.code ?? 0
        }
        // Until it has begun to wait, there is nothing to cancel.
        for _ in 0..<200 where !waiting.hasEnded {
            coordinator.cancel()
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(waiting.value(within: 10) == CocoaError.userCancelled.rawValue)
        holder.end()
        let third = HeldAccess(.writing(file, purpose: "third"))
        #expect(third.isIn(within: 10), "the cancelled wait's lock did not stay")
        third.end()
        keeper.end()
    }

    /// As Apple's: once cancelled, a coordinator runs no accessor again, and each later
    /// coordination fails with `NSUserCancelledError`, in both forms.
    @Test func aCancelledCoordinatorRefusesEveryLaterCoordination() async throws {
        let coordinator = NSFileCoordinator()
        coordinator.cancel()
        var error: NSError?
        var ran = false
        coordinator.coordinate(readingItemAt: file, error: &error) { _ in ran = true }
        #expect(!ran && error?.code == CocoaError.userCancelled.rawValue, "\(String(describing: error))")
        let queue = OperationQueue()
        let asynchronous = await withCheckedContinuation { continuation in
            coordinator.coordinate(with: [.writingIntent(with: file)], queue: queue) { continuation.resume(returning: $0) }
        }
        #expect((asynchronous as? NSError)?.code == CocoaError.userCancelled.rawValue)
        NSFileCoordinator().coordinate(readingItemAt: file, error: &error) { _ in ran = true }
        #expect(ran, "another coordinator is not affected")
    }

    // MARK: Failures

    @Test func aRootWhoseLockCantBeOpenedIsAnErrorAndTheAccessorDoesNotRun() throws {
        let broken = try TemporaryDirectory()
        // A folder where the lock file should be: the root is found, but can't be locked.
        try FileManager.default.createDirectory(at: broken.url.appendingPathComponent(AppexHome.coordinationLockName), withIntermediateDirectories: false)
        var error: NSError?
        var ran = false
        NSFileCoordinator().coordinate(writingItemAt: broken.url.appendingPathComponent("item"), error: &error) { _ in ran = true }
        #expect(!ran)
        let found = try #require(error)
        #expect(found.domain == NSCocoaErrorDomain)
        #expect(found.code == CocoaError.fileWriteUnknown.rawValue)
        #expect(found.localizedDescription.contains(broken.url.appendingPathComponent("item").path))
        #expect(found.localizedDescription.contains("EISDIR"), "\(found.localizedDescription)")
    }

    // MARK: Support

    /// One side of a coordination.
    enum Access {
        case reading(URL, purpose: String? = nil)
        case writing(URL, purpose: String? = nil)

        func coordinate(_ body: @escaping () -> Void) {
            var error: NSError?
            let coordinator = NSFileCoordinator()
            switch self {
            case .reading(let url, let purpose):
                if let purpose { coordinator.purposeIdentifier = purpose }
                coordinator.coordinate(readingItemAt: url, error: &error) { _ in body() }
            case .writing(let url, let purpose):
                if let purpose { coordinator.purposeIdentifier = purpose }
                coordinator.coordinate(writingItemAt: url, error: &error) { _ in body() }
            }
            #expect(error == nil)
        }
    }

    /// An access begun on a thread of its own, held until ``end()``.
    final class HeldAccess: Sendable {
        private let entered = DispatchSemaphore(value: 0)
        private let leave = DispatchSemaphore(value: 0)
        private let left = DispatchSemaphore(value: 0)

        init(_ access: Access) {
            Thread { [self] in
                access.coordinate {
                    self.entered.signal()
                    self.leave.wait()
                }
                left.signal()
            }.start()
        }

        /// Whether its accessor runs within `seconds`.
        func isIn(within seconds: Double) -> Bool {
            guard entered.wait(timeout: .now() + seconds) == .success else { return false }
            entered.signal()
            return true
        }

        /// Lets its accessor return, and waits for the access to end.
        func end() {
            leave.signal()
            _ = left.wait(timeout: .now() + 30)
        }
    }

    /// Holds `first` on one thread while `second` is tried on another, and says in what
    /// order they got in and out. The holder lets go 300 ms after the second has begun
    /// trying, or as soon as the second gets in, whichever is first.
    func accessWhileHolding(_ first: Access, then second: Access) throws -> [String] {
        let events = Locked<[String]>([])
        let holding = DispatchSemaphore(value: 0)
        let trying = DispatchSemaphore(value: 0)
        let secondIn = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            first.coordinate {
                events.withLock { $0.append("first in") }
                holding.signal()
                trying.wait()
                _ = secondIn.wait(timeout: .now() + .milliseconds(300))
                events.withLock { $0.append("first out") }
            }
        }
        holding.wait()
        DispatchQueue.global().async(group: done) {
            trying.signal()
            second.coordinate {
                events.withLock { $0.append("second in") }
                secondIn.signal()
            }
        }
        try #require(done.wait(timeout: .now() + 30) == .success, "the two accesses did not end within 30 s")
        return events.withLock { $0 }
    }

    func makeFolder(_ name: String) throws -> URL {
        let folder = container.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
