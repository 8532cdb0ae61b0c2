import AppexGroups
import AppexLocking
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// Shared defaults between two real processes: this test process and AppexGroupsHelper.
@Suite(.timeLimit(.minutes(2))) final class SharedDefaultsAcrossProcessesTests {
    let shared: SuiteFolder
    var suite: String { shared.suite }
    var folder: URL { shared.url }

    init() throws {
        shared = try SuiteFolder()
    }

    func open() throws -> GroupDefaults { try shared.open() }

    @Test func twoProcessesUpdatingOneKeyTenThousandTimesEachLoseNoUpdate() throws {
        let defaults = try open()
        let helper = try GroupsHelper(["increment", folder.path, suite, "counter", "10000"])
        for _ in 0..<10_000 { defaults.update(forKey: "counter") { (($0 as? Int) ?? 0) + 1 } }
        #expect(helper.nextLine() == "done")
        #expect(helper.finish() == .exited(0))
        #expect(defaults.integer(forKey: "counter") == 20_000)
        #expect(try open().integer(forKey: "counter") == 20_000)
    }

    @Test func aWriterKilledMidwayLeavesTheStoreReadableAndConsistent() throws {
        for round in 0..<5 {
            let helper = try GroupsHelper(["pairs", folder.path, suite])
            #expect(helper.nextLine() == "started")
            usleep(UInt32(5_000 + round * 7_000)) // somewhere in the middle of some write
            helper.kill()

            let defaults = try open()
            let pair = try #require(defaults.dictionary(forKey: "pair"), "round \(round): the last whole write is there")
            let n = try #require(pair["n"] as? Int)
            #expect(pair["copy"] as? Int == n, "round \(round): \(pair)")
            // The lock died with the writer: the next change goes through at once.
            defaults.set(["n": -1, "copy": -1], forKey: "pair")
            #expect(try open().dictionary(forKey: "pair")?["n"] as? Int == -1)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("Library/Preferences").path)
        #expect(!left.contains { $0.hasSuffix(".unfinished") }, "copies of killed writers are removed when the suite is opened: \(left)")
    }

    /// What a writer killed between its rename and its count leaves: the new file in place,
    /// and the count in the lock file where it was. A process that already holds the suite
    /// sees the new values, and hears of them, all the same.
    @Test func aWriteWhoseCountNeverCameIsSeenAndAnnouncedByAProcessHoldingTheSuite() throws {
        let defaults = try open()
        defaults.set("before", forKey: "greeting")
        let announced = Announcements(of: defaults)
        defer { announced.stop() }
        let preferences = folder.appendingPathComponent("Library/Preferences")
        let lock = preferences.appendingPathComponent(".\(suite).plist.lock")
        let count = try Data(contentsOf: lock)

        let copy = preferences.appendingPathComponent(".\(suite).plist.99999.unfinished")
        try PropertyListSerialization.data(fromPropertyList: ["greeting": "after"], format: .binary, options: 0).write(to: copy)
        #expect(rename(copy.path, preferences.appendingPathComponent("\(suite).plist").path) == 0)
        #expect(try Data(contentsOf: lock) == count, "the count did not move")

        #expect(announced.next() == ["greeting"])
        #expect(defaults.string(forKey: "greeting") == "after")
    }

    /// A process that learns by other means that another has written (here, the helper's
    /// exit) reads what it wrote, though the announcement has not come: the watcher is held
    /// in an observer of the first change, so the second is not announced until the read.
    /// Before reads compared the count, this read gave the first value.
    @Test func aReadAfterTheOtherProcessSaysItWroteSeesItsWrite() throws {
        let defaults = try open()
        defaults.set("before", forKey: "greeting")
        let held = HeldObserver(of: defaults)
        defer { held.stop() }

        #expect(try GroupsHelper(["set", folder.path, suite, "greeting", "first"]).finish() == .exited(0))
        #expect(held.waitUntilHolding(), "the first change is announced on the watcher, which stays there")
        #expect(try GroupsHelper(["set", folder.path, suite, "greeting", "second"]).finish() == .exited(0))
        #expect(defaults.string(forKey: "greeting") == "second")
    }

    @Test func aChangeInOneProcessIsSeenAndAnnouncedInTheOther() throws {
        let defaults = try open()
        let helper = try GroupsHelper(["wait-for", folder.path, suite, "greeting", "hello"])
        #expect(helper.nextLine() == "ready")
        defaults.set("hello", forKey: "greeting")
        #expect(helper.nextLine() == "seen")
        #expect(helper.finish() == .exited(0))
    }

    @Test func aChangeInTheOtherProcessIsSeenHere() throws {
        let defaults = try open()
        defaults.register(defaults: ["greeting": "registered"])
        let helper = try GroupsHelper(["set", folder.path, suite, "greeting", "from the helper"])
        #expect(helper.nextLine() == "set")
        #expect(helper.finish() == .exited(0))
        // The helper's write is announced to this process; wait for that rather than sleep.
        let deadline = Date().addingTimeInterval(10)
        while defaults.string(forKey: "greeting") != "from the helper", Date() < deadline { usleep(1_000) }
        #expect(defaults.string(forKey: "greeting") == "from the helper")
    }
}

/// An observer of a suite's announcements that holds the thread of the first one until
/// ``stop()``: with it, the watcher of other processes' changes is held.
private final class HeldObserver: @unchecked Sendable {
    private let holding = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let first = Locked(true)
    private var observer: (any NSObjectProtocol)?

    init(of defaults: GroupDefaults) {
        observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: defaults, queue: nil) { [self] _ in
            guard first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) else { return }
            holding.signal()
            _ = released.wait(timeout: .now() + .seconds(30))
        }
    }

    /// Whether the first announcement came, and is held, within 10 seconds.
    func waitUntilHolding() -> Bool {
        holding.wait(timeout: .now() + .seconds(10)) == .success
    }

    /// Releases the held thread, and observes no more.
    func stop() {
        released.signal()
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }
}
