import AppexCore
import AppexGroups
import AppexLocking
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// File presenters hear of the coordinations of other processes of the container, as an
/// app's presenter hears of its extension's write on Apple's systems: this test process and
/// AppexGroupsHelper, each presenting or coordinating in turn (``PresenterExchange``).
@Suite(.serialized, .timeLimit(.minutes(2))) final class FilePresentersAcrossProcessesTests {
    let container: TemporaryDirectory
    let file: URL
    private let presenters = RegisteredPresenters()

    init() throws {
        container = try TemporaryDirectory()
        try AppexHome.prepareContainer(at: container.url)
        file = container.url.appendingPathComponent("notes.txt")
        try Data("first".utf8).write(to: file)
    }

    func presenter(of url: URL) -> RecordingPresenter {
        presenters.presenter(of: url)
    }

    /// The helper presenting `url`, once it says so.
    func presentingHelper(_ url: URL, mode: String = "answer") throws -> GroupsHelper {
        let helper = try GroupsHelper(["present", url.path, mode])
        #expect(helper.nextLine() == "presenting")
        return helper
    }

    @Test func thisProcesssPresenterHearsOfAnotherProcesssWrite() throws {
        let presenter = presenter(of: file)
        let writer = try GroupsHelper(["coordinated-write", file.path, "from the helper"])
        #expect(writer.nextLine() == "written")
        #expect(writer.finish() == .exited(0))
        #expect(presenter.messages(count: 3) == ["relinquish to writer", "reacquired from writer", "changed"])
        #expect(try String(contentsOf: file, encoding: .utf8) == "from the helper")
    }

    @Test func anotherProcesssPresenterMakesWayBeforeTheAccessorAndHearsWhatChanged() throws {
        let helper = try presentingHelper(file)
        var error: NSError?
        var heardFirst: String?
        NSFileCoordinator().coordinate(writingItemAt: file, error: &error) { url in
            heardFirst = helper.nextLine(within: 5)
            try? Data("second".utf8).write(to: url)
        }
        #expect(error == nil)
        #expect(heardFirst == "relinquish to writer", "the helper's presenter made way before the accessor ran")
        #expect(helper.nextLine() == "reacquired from writer")
        #expect(helper.nextLine() == "changed")

        NSFileCoordinator().coordinate(readingItemAt: file, error: &error) { _ in }
        #expect([helper.nextLine(), helper.nextLine(), helper.nextLine()] == ["save", "relinquish to reader", "reacquired from reader"])
    }

    @Test func anotherProcesssFailedSaveFailsTheReadAndSaysWhose() throws {
        let helper = try presentingHelper(file, mode: "fail-save")
        var error: NSError?
        var ran = false
        NSFileCoordinator().coordinate(readingItemAt: file, error: &error) { _ in ran = true }
        #expect(!ran)
        #expect(helper.nextLine() == "save")
        let description = error?.localizedDescription ?? ""
        #expect(description.contains("a file presenter of process \(helper.process.processID)-") && description.contains("the disk is full"), "\(description)")
    }

    @Test func aMoveIsToldToAnotherProcesssPresenterWhichFollowsIt() throws {
        let helper = try presentingHelper(file)
        let destination = container.url.appendingPathComponent("archived.txt")
        let coordinator = NSFileCoordinator()
        var error: NSError?
        coordinator.coordinate(writingItemAt: file, options: .forMoving, writingItemAt: destination, options: .forReplacing, error: &error) { from, to in
            try? FileManager.default.moveItem(at: from, to: to)
            coordinator.item(at: from, didMoveTo: to)
        }
        #expect(error == nil)
        #expect([helper.nextLine(), helper.nextLine(), helper.nextLine()] == ["relinquish to writer", "moved to archived.txt", "reacquired from writer"])
        // It presents the new place now, and hears of a write there.
        let deadline = Date().addingTimeInterval(10)
        var heard: String?
        repeat {
            NSFileCoordinator().coordinate(writingItemAt: destination, error: &error) { url in try? Data(UUID().uuidString.utf8).write(to: url) }
            heard = helper.nextLine(within: 0.5)
        } while heard == nil && Date() < deadline
        #expect(heard == "relinquish to writer")
    }

    @Test func aPresenterProcessThatNeverAnswersHoldsTheWriterUntilItIsGone() throws {
        let helper = try presentingHelper(file, mode: "hold")
        let file = self.file
        let writing = BackgroundWork { () -> NSError? in
            var error: NSError?
            NSFileCoordinator().coordinate(writingItemAt: file, error: &error) { url in try? Data("after".utf8).write(to: url) }
            return error
        }
        #expect(helper.nextLine() == "relinquish to writer")
        usleep(300_000)
        #expect(!writing.hasEnded, "the writer waits for the presenter")
        #expect(try String(contentsOf: file, encoding: .utf8) == "first")
        helper.kill()
        let ended = writing.value()
        #expect(ended != nil && ended! == nil, "a gone process has nothing to make way")
        #expect(try String(contentsOf: file, encoding: .utf8) == "after")
    }

    /// Any process of the group may write in the exchange's folder. What it plants in this
    /// process's inbox, a message that is not JSON, one too large, one naming `..` or a link,
    /// news naming too many attributes, is dropped with a line on standard error, and the
    /// exchange goes on serving.
    @Test func hostileMessagesInAnInboxAreDroppedAndTheExchangeGoesOn() throws {
        let presenter = presenter(of: file)
        let exchange = container.url.appendingPathComponent(".appex-presenters")
        let inbox = try #require(try FileManager.default.contentsOfDirectory(atPath: exchange.path)
            .first { $0.hasPrefix("\(getpid())-") && $0.hasSuffix(".inbox") })
        let inboxURL = exchange.appendingPathComponent(inbox)
        let from = "1-0123456789abcdef"
        try Data("not json".utf8).write(to: inboxURL.appendingPathComponent("a.ask"))
        try Data(repeating: UInt8(ascii: " "), count: 1 << 20).write(to: inboxURL.appendingPathComponent("b.ask"))
        try Data(#"{"id":"c","from":"\#(from)","items":[{"path":["..","etc","passwd"],"writing":true,"options":1}]}"#.utf8)
            .write(to: inboxURL.appendingPathComponent("c.ask"))
        try FileManager.default.createSymbolicLink(atPath: inboxURL.appendingPathComponent("d.ask").path, withDestinationPath: file.path)
        // News of ubiquity attributes for `..`, and with more attributes than a message holds.
        try Data(#"{"id":"e","from":"\#(from)","path":["..","notes.txt"],"attributes":["NSURLIsUbiquitousItemKey"]}"#.utf8)
            .write(to: inboxURL.appendingPathComponent("e.ubiquity"))
        let many = (0..<65).map { "\"NSURLUbiquitousItemKey\($0)\"" }.joined(separator: ",")
        try Data(#"{"id":"f","from":"\#(from)","path":["notes.txt"],"attributes":[\#(many)]}"#.utf8)
            .write(to: inboxURL.appendingPathComponent("f.ubiquity"))
        presenter.observed.withLock { $0 = Set([.isUbiquitousItemKey] + (0..<65).map { URLResourceKey(rawValue: "NSURLUbiquitousItemKey\($0)") }) }
        let writer = try GroupsHelper(["coordinated-write", file.path, "still served"])
        #expect(writer.nextLine() == "written")
        #expect(writer.finish() == .exited(0))
        #expect(presenter.messages(count: 3) == ["relinquish to writer", "reacquired from writer", "changed"])
        let left = try FileManager.default.contentsOfDirectory(atPath: inboxURL.path)
        #expect(left.isEmpty, "every message was read or dropped: \(left)")
        #expect(try String(contentsOf: file, encoding: .utf8) == "still served", "the link's target was not written")
    }

    /// A member of the group that floods the exchange's folder with long lists of items, each
    /// of a process it keeps alive, makes each coordination read at most 1 MiB of them, not
    /// all 12 MiB. Before the budget, it read them all, at every coordination.
    @Test func aFloodOfPresentersListsIsReadOnlyUpToItsBudget() throws {
        let exchange = container.url.appendingPathComponent(".appex-presenters")
        try FileManager.default.createDirectory(at: exchange, withIntermediateDirectories: true)
        let list = try JSONEncoder().encode((0..<1_400).map { ["elsewhere", "item-\($0)-padding-padding"] })
        #expect(list.count > 50_000 && list.count <= 64 << 10, "\(list.count)")
        var held: [FileDescriptor] = []
        defer { for descriptor in held { descriptor.close() } }
        for index in 0..<200 {
            let token = "\(1_000_000 + index)-\(String(format: "%016x", index))"
            try list.write(to: exchange.appendingPathComponent("\(token).items"))
            let alive = try FileDescriptor.open(exchange.appendingPathComponent("\(token).alive").path, flags: O_RDWR | O_CREAT)
            #expect(try alive.tryLockByte(at: 0, .exclusive))
            held.append(alive)
        }
        let before = try Self.bytesRead()
        var error: NSError?
        NSFileCoordinator().coordinate(writingItemAt: file, error: &error) { url in try? Data("flooded".utf8).write(to: url) }
        let read = try Self.bytesRead() - before
        #expect(error == nil)
        #expect(read < 4 << 20, "one coordination read \(read) bytes of 200 lists of 64 KiB")
    }

    /// The bytes the calling thread has read, from `/proc/thread-self/io`: the coordination
    /// reads on its caller's thread, and other suites read on theirs meanwhile.
    static func bytesRead() throws -> Int {
        let io = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("rchar:") })
        return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    }

    /// `item(at:didChangeUbiquityAttributes:)` reaches the item's presenters here and in the
    /// container's other processes, each with the attributes it observes: all of them for a
    /// presenter that leaves the property as it is, as Apple's.
    @Test func ubiquityAttributesReachThePresentersThatObserveThemHereAndInAnotherProcess() throws {
        let helper = try GroupsHelper(["present", file.path, "answer"])
        #expect(helper.nextLine() == "presenting")
        let here = presenters.presenter(of: file)
        here.observed.withLock { $0 = [.ubiquitousItemIsDownloadingKey] }
        let deaf = presenters.presenter(of: file)
        NSFileCoordinator().item(at: file, didChangeUbiquityAttributes: [.ubiquitousItemIsDownloadingKey, .ubiquitousItemIsUploadedKey])
        #expect(here.messages(count: 1) == ["ubiquity NSURLUbiquitousItemIsDownloadingKey"])
        #expect(helper.nextLine() == "ubiquity NSURLUbiquitousItemIsDownloadingKey NSURLUbiquitousItemIsUploadedKey")
        deaf.settle()
        #expect(deaf.messages.isEmpty, "it observes none")
    }
}
