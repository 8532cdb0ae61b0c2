import AppexGroups
import AppexTesting
import Foundation
import Glibc
import Testing

/// Shared defaults in one process: Foundation's `UserDefaults` behaviour, stored in the
/// group container, with every instance over the same container seeing the same values.
@Suite final class GroupDefaultsTests {
    let shared: SuiteFolder
    var suite: String { shared.suite }
    var folder: URL { shared.url }

    init() throws {
        shared = try SuiteFolder()
    }

    func open() throws -> GroupDefaults { try shared.open() }

    @Test func propertyListValuesComeBackAsTheyWereSet() throws {
        let defaults = try open()
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        defaults.set("text", forKey: "string")
        defaults.set(42, forKey: "int")
        defaults.set(2.5, forKey: "double")
        defaults.set(true, forKey: "bool")
        defaults.set(date, forKey: "date")
        defaults.set(Data([1, 2, 3]), forKey: "data")
        defaults.set(["a", "b"], forKey: "array")
        defaults.set(["nested": ["n": 1]], forKey: "dictionary")
        defaults.set(URL(fileURLWithPath: "/tmp/x"), forKey: "url")

        let reopened = try open()
        #expect(reopened.string(forKey: "string") == "text")
        #expect(reopened.integer(forKey: "int") == 42)
        #expect(reopened.double(forKey: "double") == 2.5)
        #expect(reopened.bool(forKey: "bool"))
        #expect(reopened.object(forKey: "date") as? Date == date)
        #expect(reopened.data(forKey: "data") == Data([1, 2, 3]))
        #expect(reopened.stringArray(forKey: "array") == ["a", "b"])
        #expect((reopened.dictionary(forKey: "dictionary")?["nested"] as? [String: Any])?["n"] as? Int == 1)
        #expect(reopened.url(forKey: "url")?.path == "/tmp/x")
        #expect(Set(reopened.dictionaryRepresentation().keys) == ["string", "int", "double", "bool", "date", "data", "array", "dictionary", "url"])
        #expect(reopened.fileURL.path.hasSuffix("Library/Preferences/\(suite).plist"))
    }

    @Test func removingAValueRemovesItForEveryInstance() throws {
        let writer = try open()
        let reader = try open()
        writer.set("here", forKey: "key")
        writer.removeObject(forKey: "key")
        #expect(writer.object(forKey: "key") == nil)
        #expect(reader.object(forKey: "key") == nil)
        #expect(reader.dictionaryRepresentation().isEmpty)
    }

    @Test func registeredDefaultsAreAFallbackThatNeverMasksAStoredValue() throws {
        let defaults = try open()
        defaults.register(defaults: ["limit": 10, "theme": "light"])
        #expect(defaults.integer(forKey: "limit") == 10)
        try open().set(25, forKey: "limit") // another instance, as another process would
        #expect(defaults.integer(forKey: "limit") == 25)
        #expect(defaults.dictionaryRepresentation()["limit"] as? Int == 25)
        #expect(defaults.dictionaryRepresentation()["theme"] as? String == "light")
        try open().removeObject(forKey: "limit")
        #expect(defaults.integer(forKey: "limit") == 10)
        // Registration is this object's alone: it is never stored.
        #expect(try open().object(forKey: "theme") == nil)
    }

    @Test func updateReadsAndWritesInOneStep() throws {
        let defaults = try open()
        for _ in 0..<100 { defaults.update(forKey: "count") { (($0 as? Int) ?? 0) + 1 } }
        #expect(try open().integer(forKey: "count") == 100)
        #expect(defaults.update(forKey: "count") { _ in nil } == nil)
        #expect(defaults.object(forKey: "count") == nil)
    }

    @Test func aChangeIsAnnouncedWithItsKeysToEveryInstance() throws {
        let writer = try open()
        let reader = try open()
        let announced = Announcements(of: reader)
        defer { announced.stop() }
        writer.set("v1", forKey: "watched")
        #expect(announced.next() == ["watched"])
        #expect(reader.string(forKey: "watched") == "v1")
    }

    @Test func setWithoutAChangeAnnouncesNothing() throws {
        let defaults = try open()
        defaults.set("same", forKey: "key")
        let announced = Announcements(of: defaults)
        defer { announced.stop() }
        defaults.set("same", forKey: "key")
        defaults.set("other", forKey: "second")
        #expect(announced.next() == ["second"])
    }

    @Test func aFileThatIsNotAPropertyListIsSetAsideAndTheSuiteStartsEmpty() throws {
        let preferences = folder.appendingPathComponent("Library/Preferences")
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        try Data("not a plist".utf8).write(to: preferences.appendingPathComponent("\(suite).plist"))
        let defaults = try open()
        #expect(defaults.dictionaryRepresentation().isEmpty)
        defaults.set("fresh", forKey: "key")
        #expect(try open().string(forKey: "key") == "fresh")
        let kept = try FileManager.default.contentsOfDirectory(atPath: preferences.path).filter { $0.contains(".corrupt-") }
        #expect(kept.count == 1, "the unreadable file is kept for whoever wants to look")
    }

    /// A container removed (and so its suite) while this process still holds the suite open:
    /// opening the suite again starts it anew in the new folder, rather than handing back the
    /// object whose files were removed, whose writes would go nowhere.
    @Test func aSuiteOpenedAgainAfterItsContainerWasRemovedStartsAnewAndIsStored() throws {
        let held = try open()
        held.set("before", forKey: "key")
        try FileManager.default.removeItem(at: folder)
        let reopened = try open()
        #expect(reopened.object(forKey: "key") == nil, "the removed suite's values went with it")
        reopened.set("after", forKey: "key")
        let file = folder.appendingPathComponent("Library/Preferences/\(suite).plist")
        let stored = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil) as? [String: Any]
        #expect(stored?["key"] as? String == "after")
        #expect(try open().string(forKey: "key") == "after")
        withExtendedLifetime(held) {}
    }

    /// Every process of the group may write in its container. A FIFO or a link planted at
    /// the suite's file is set aside, not waited on, nor followed to the file it names.
    @Test(arguments: ["fifo", "link"])
    func somethingPlantedAtTheSuitesFileIsSetAsideNotWaitedOnOrFollowed(kind: String) throws {
        let preferences = folder.appendingPathComponent("Library/Preferences")
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent("elsewhere.plist")
        let elsewhere = try PropertyListSerialization.data(fromPropertyList: ["secret": "elsewhere"], format: .binary, options: 0)
        try elsewhere.write(to: target)
        let planted = preferences.appendingPathComponent("\(suite).plist").path
        #expect((kind == "fifo" ? mkfifo(planted, 0o600) : symlink(target.path, planted)) == 0)

        let defaults = try open()
        #expect(defaults.dictionaryRepresentation().isEmpty)
        defaults.set("fresh", forKey: "key")
        #expect(try open().string(forKey: "key") == "fresh")
        #expect(try Data(contentsOf: target) == elsewhere, "the file a link named is untouched")
        let kept = try FileManager.default.contentsOfDirectory(atPath: preferences.path).filter { $0.contains(".corrupt-") }
        #expect(kept.count == 1, "what was planted is kept for whoever wants to look: \(kept)")
    }

    /// The review's attack: an extension of the group plants a link at the name of the copy
    /// the app writes before its rename (its pid is a guess among few). The app's next change
    /// truncated the file the link named and wrote the suite into it: `authorized_keys`, with
    /// a key among the values. The copy is now made new, never written through a link.
    @Test func aLinkPlantedAtTheUnfinishedCopysNameIsRemovedNotWrittenThrough() throws {
        let defaults = try open()
        defaults.set("first", forKey: "key")
        let preferences = folder.appendingPathComponent("Library/Preferences")
        let victim = folder.appendingPathComponent("authorized_keys")
        try Data("the user's keys\n".utf8).write(to: victim)
        let copy = preferences.appendingPathComponent(".\(suite).plist.\(getpid()).unfinished").path
        #expect(symlink(victim.path, copy) == 0)
        defaults.set("ssh-ed25519 AAAA attacker", forKey: "key")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "the user's keys\n")
        #expect(try open().string(forKey: "key") == "ssh-ed25519 AAAA attacker")
        #expect(!FileManager.default.fileExists(atPath: copy))
    }

    /// A member of the group renames a file over the suite that would take the app's memory:
    /// shared references that stand for 16⁴⁰ values, or a sparse file of a terabyte. Each is
    /// set aside unbuilt and unread, as a damaged file is.
    @Test(.timeLimit(.minutes(1)), arguments: ["shared", "sparse"])
    func aSuiteFileThatWouldTakeTheAppsMemoryIsSetAsideUnread(kind: String) throws {
        let preferences = folder.appendingPathComponent("Library/Preferences")
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        let planted = preferences.appendingPathComponent("\(suite).plist")
        if kind == "shared" {
            try HostilePropertyLists.sharedLevels(40, width: 16).write(to: planted)
        } else {
            #expect(FileManager.default.createFile(atPath: planted.path, contents: nil))
            #expect(truncate(planted.path, 1 << 40) == 0)
        }
        let defaults = try open()
        #expect(defaults.dictionaryRepresentation().isEmpty)
        defaults.set("fresh", forKey: "key")
        #expect(try open().string(forKey: "key") == "fresh")
        let kept = try FileManager.default.contentsOfDirectory(atPath: preferences.path).filter { $0.contains(".corrupt-") }
        #expect(kept.count == 1, "\(kept)")
    }

    @Test func aChangeThatWouldMakeTheSuiteLargerThanItsLimitIsRefusedAndTheSuiteKept() throws {
        let defaults = try open()
        defaults.set("kept", forKey: "small")
        defaults.set(Data(count: 17 << 20), forKey: "large")
        #expect(defaults.data(forKey: "large") == nil)
        #expect(try open().string(forKey: "small") == "kept")
    }

    /// A FIFO planted at the lock's path makes the suite unavailable, said on standard error,
    /// rather than hanging the process that opens it.
    @Test func aFIFOAtTheLocksPathGivesNilRatherThanHanging() throws {
        let preferences = folder.appendingPathComponent("Library/Preferences")
        try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        #expect(mkfifo(preferences.appendingPathComponent(".\(suite).plist.lock").path, 0o600) == 0)
        #expect(GroupDefaults(suiteName: suite, container: folder) == nil)
    }

    @Test func aContainerThatCantBeWrittenGivesNil() throws {
        let file = folder.appendingPathComponent("a-file")
        try Data().write(to: file)
        #expect(GroupDefaults(suiteName: suite, container: file) == nil)
    }
}
