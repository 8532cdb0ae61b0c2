import AppexGroups
import AppexSystem
import AppexTesting
import Foundation
import Testing

/// Foundation's own `UserDefaults(suiteName: "group.…")`, as Apple's code writes it, is the
/// group's shared defaults once mirrored: without `synchronize()`, across processes.
///
/// Foundation keeps one table per suite name for the whole process, so each test mirrors a
/// suite of its own name, and stops mirroring it at the end.
@Suite(.timeLimit(.minutes(2))) final class FoundationGroupSuitesTests {
    let folder: TemporaryDirectory
    let suite = "group.com.example.mirror" + UUID().uuidString.prefix(8).lowercased()

    init() throws {
        folder = try TemporaryDirectory()
    }

    deinit {
        FoundationGroupSuites.stop(suite)
    }

    /// The group's shared defaults, as any process of the group opens them.
    func shared() throws -> GroupDefaults {
        try #require(GroupDefaults(suiteName: suite, container: folder.url))
    }

    /// Foundation's suite, as Apple's code makes it.
    var foundation: UserDefaults { UserDefaults(suiteName: suite)! }

    func helper(_ command: String, _ arguments: String...) throws -> GroupsHelper {
        try GroupsHelper([command, folder.url.path, suite] + arguments)
    }

    @Test func theSuiteStartsWithTheGroupsValuesAndNothingElse() throws {
        let group = try shared()
        group.set("Groceries", forKey: "lastNote")
        group.set(3, forKey: "count")
        group.set(["a", "b"], forKey: "tags")
        foundation.set("from before", forKey: "stale")

        FoundationGroupSuites.mirror(group)
        #expect(foundation.string(forKey: "lastNote") == "Groceries")
        #expect(foundation.integer(forKey: "count") == 3)
        #expect(foundation.stringArray(forKey: "tags") == ["a", "b"])
        #expect(foundation.object(forKey: "stale") == nil, "the suite is the group's, not what the process had")
    }

    @Test func whatTheProcessChangesReachesTheGroupAndOtherProcessesWithoutSynchronize() async throws {
        let group = try shared()
        group.set("old", forKey: "removed")
        FoundationGroupSuites.mirror(group)
        foundation.set("Lunch", forKey: "lastNote")
        foundation.set(2.5, forKey: "ratio")
        foundation.removeObject(forKey: "removed")

        // The mirror writes what changed at each tick: one between two sets writes the first alone.
        #expect(await eventually { group.string(forKey: "lastNote") == "Lunch" && group.double(forKey: "ratio") == 2.5 && group.object(forKey: "removed") == nil },
                "the changes are written within a quarter of a second: \(String(describing: group.string(forKey: "lastNote"))), \(group.double(forKey: "ratio"))")
        let other = try helper("get", "lastNote")
        #expect(other.nextLine() == "Lunch")
        #expect(other.finish() == .exited(0))
    }

    @Test func flushWritesAtOnce() throws {
        FoundationGroupSuites.mirror(try shared())
        foundation.set("now", forKey: "when")
        FoundationGroupSuites.flush()
        let other = try helper("get", "when")
        #expect(other.nextLine() == "now")
        #expect(other.finish() == .exited(0))
    }

    @Test func whatAnotherProcessChangesIsInTheSuiteWithoutSynchronize() async throws {
        FoundationGroupSuites.mirror(try shared())
        #expect(foundation.string(forKey: "fromHelper") == nil)
        let setter = try helper("set", "fromHelper", "hello")
        #expect(setter.nextLine() == "set")
        #expect(setter.finish() == .exited(0))
        #expect(await eventually { self.foundation.string(forKey: "fromHelper") == "hello" })

        let foundationSetter = try helper("foundation-set", "fromHelper", "again")
        #expect(foundationSetter.nextLine() == "set", "the other process's Foundation suite, flushed as it exits")
        #expect(foundationSetter.finish() == .exited(0))
        #expect(await eventually { self.foundation.string(forKey: "fromHelper") == "again" })
    }

    @Test func twoProcessesChangingTheirSuitesAtOnceLoseNeithersChange() async throws {
        let group = try shared()
        FoundationGroupSuites.mirror(group)
        let watcher = try helper("foundation-watch", "mine", "1")
        #expect(watcher.nextLine() == "ready")
        let setter = try helper("foundation-set", "theirs", "2")
        foundation.set("1", forKey: "mine")
        #expect(setter.nextLine() == "set")
        #expect(setter.finish() == .exited(0))
        #expect(watcher.nextLine() == "seen", "the third process's suite shows this one's change")
        #expect(watcher.finish() == .exited(0))
        #expect(await eventually { self.foundation.string(forKey: "theirs") == "2" && group.string(forKey: "mine") == "1" })
        #expect(group.string(forKey: "theirs") == "2")
    }

    /// The group announces the mirror's own writes on the mirror's queue: code that observes
    /// them there and ends its request (which flushes) must not wait for itself.
    @Test func flushingFromAnAnnouncementOnTheMirrorsQueueGoesOn() throws {
        let group = try shared()
        FoundationGroupSuites.mirror(group)
        let flushedInside = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: group, queue: nil) { _ in
            FoundationGroupSuites.flush()
            flushedInside.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        foundation.set("now", forKey: "announced")
        FoundationGroupSuites.flush()
        #expect(flushedInside.wait(timeout: .now() + 10) == .success)
        #expect(group.string(forKey: "announced") == "now")
    }

    @Test func stoppingLeavesTheSuiteItsValuesAndTheGroupAlone() async throws {
        let group = try shared()
        group.set("kept", forKey: "value")
        FoundationGroupSuites.mirror(group)
        foundation.set("last", forKey: "written")
        FoundationGroupSuites.stop(suite)
        #expect(group.string(forKey: "written") == "last", "stopping writes what was changed")
        foundation.set("private", forKey: "value")
        try await Task.sleep(for: .milliseconds(600))
        #expect(group.string(forKey: "value") == "kept")
    }
}
