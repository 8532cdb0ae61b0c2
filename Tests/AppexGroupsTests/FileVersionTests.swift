import AppexCore
import AppexGroups
import AppexLocking
import AppexTesting
import Foundation
import Glibc
import Testing

/// `NSFileVersion` as Apple documents it, on a real container: the current version, versions
/// kept and restored, their presenters' messages, here and in another process, and a store
/// that another member of the group may have tampered with.
@Suite(.serialized, .timeLimit(.minutes(2))) final class FileVersionTests {
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

    /// Keeps `text` as a version of the file, from a file beside it.
    func keep(_ text: String, moving: Bool = false) throws -> NSFileVersion {
        let contents = container.url.appendingPathComponent("contents-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: contents)
        return try NSFileVersion.addOfItem(at: file, withContentsOf: contents, options: moving ? .byMoving : [])
    }

    func contents(_ url: URL) -> String? {
        try? String(contentsOf: url, encoding: .utf8)
    }

    @Test func theCurrentVersionIsTheItemItself() throws {
        let current = try #require(NSFileVersion.currentVersionOfItem(at: file))
        #expect(current.url == file && current.localizedName == "today.txt" && !current.isConflict && current.isResolved)
        let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        #expect(current.modificationDate == modified)
        let again = NSFileVersion.version(itemAt: file, forPersistentIdentifier: current.persistentIdentifier)
        #expect(again == current)
        #expect(NSFileVersion.currentVersionOfItem(at: folder.appendingPathComponent("missing.txt")) == nil)
        #expect(NSFileVersion.otherVersionsOfItem(at: file)?.isEmpty == true, "none kept yet")
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: file)?.isEmpty == true)
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: folder.appendingPathComponent("missing.txt")) == nil)
        #expect(throws: CocoaError.self) { try current.remove() }
    }

    @Test func aKeptVersionIsListedRestoredAndRemoved() throws {
        let morning = try keep("morning")
        let noon = try keep("noon", moving: true)
        let kept = try #require(NSFileVersion.otherVersionsOfItem(at: file))
        #expect(kept == [morning, noon], "oldest first")
        #expect(kept.map { contents($0.url) } == ["morning", "noon"] && kept.allSatisfy { $0.localizedName == "today.txt" })
        #expect(morning.url.path.hasPrefix(container.url.path + "/.appex-versions/"), "kept in the container: \(morning.url.path)")
        #expect(morning.localizedNameOfSavingComputer == ProcessInfo.processInfo.hostName && morning.hasLocalContents)

        #expect(try morning.replaceItem(at: file) == file)
        #expect(contents(file) == "morning" && NSFileVersion.otherVersionsOfItem(at: file)?.count == 2, "a copy: the version is still kept")
        _ = try noon.replaceItem(at: file, options: .byMoving)
        #expect(contents(file) == "noon" && NSFileVersion.otherVersionsOfItem(at: file) == [morning], "moved: no longer kept")

        let identifier = morning.persistentIdentifier
        #expect(NSFileVersion.version(itemAt: file, forPersistentIdentifier: identifier) == morning)
        morning.isDiscardable = true
        #expect(NSFileVersion.otherVersionsOfItem(at: file)?.first?.isDiscardable == true, "kept in the store")
        try morning.remove()
        #expect(NSFileVersion.version(itemAt: file, forPersistentIdentifier: identifier) == nil)
        _ = try keep("evening")
        _ = try keep("night")
        try NSFileVersion.removeOtherVersionsOfItem(at: file)
        #expect(NSFileVersion.otherVersionsOfItem(at: file)?.isEmpty == true)
    }

    /// As Apple raises: a version once discardable stays so, and the current version never is.
    @Test func discardabilityChangesOnlyAsAppleAllows() async throws {
        try #require(NSFileVersion.currentVersionOfItem(at: file)).isDiscardable = false
        let kept = try keep("kept")
        kept.isDiscardable = true
        kept.isDiscardable = true
        #expect(NSFileVersion.otherVersionsOfItem(at: file)?.first?.isDiscardable == true)
        await #expect(processExitsWith: .failure) {
            NSFileVersion.currentVersionOfItem(at: URL(fileURLWithPath: "/etc/hostname"))?.isDiscardable = true
        }
        await #expect(processExitsWith: .failure) {
            let container = try TemporaryDirectory()
            try AppexHome.prepareContainer(at: container.url)
            let item = container.url.appendingPathComponent("item.txt")
            try Data("now".utf8).write(to: item)
            let contents = container.url.appendingPathComponent("then.txt")
            try Data("then".utf8).write(to: contents)
            let version = try NSFileVersion.addOfItem(at: item, withContentsOf: contents)
            version.isDiscardable = true
            version.isDiscardable = false
        }
    }

    @Test func presentersOfTheItemAndOfItsFolderHearOfEachVersion() throws {
        let item = presenters.presenter(of: file)
        let holder = presenters.presenter(of: folder)
        let version = try keep("kept")
        try version.remove()
        #expect(item.messages(count: 2) == ["gained today.txt", "lost today.txt"])
        #expect(holder.messages(count: 2) == ["today.txt gained a version", "today.txt lost a version"])
    }

    @Test func versionsFollowTheItemThroughACoordinatedMove() throws {
        _ = try keep("before the move")
        let moved = folder.appendingPathComponent("renamed.txt")
        var error: NSError?
        let coordinator = NSFileCoordinator()
        coordinator.coordinate(writingItemAt: file, options: .forMoving, writingItemAt: moved, options: .forReplacing, error: &error) { from, to in
            try? FileManager.default.moveItem(at: from, to: to)
            coordinator.item(at: from, didMoveTo: to)
        }
        #expect(error == nil)
        #expect(NSFileVersion.otherVersionsOfItem(at: moved)?.map { contents($0.url) } == ["before the move"])
        try Data("a new file".utf8).write(to: file)
        #expect(NSFileVersion.otherVersionsOfItem(at: file)?.isEmpty == true, "the old name keeps nothing")
    }

    @Test func aNewVersionIsWrittenInItsTemporaryFolderAndMovedIn() throws {
        let temporary = NSFileVersion.temporaryDirectoryURLForNewVersionOfItem(at: file)
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: temporary.path, isDirectory: &isFolder) && isFolder.boolValue)
        let contents = temporary.appendingPathComponent("draft.txt")
        try Data("draft".utf8).write(to: contents)
        let written = try FileManager.default.attributesOfItem(atPath: contents.path)[.systemFileNumber] as? Int
        let version = try NSFileVersion.addOfItem(at: file, withContentsOf: contents, options: .byMoving)
        #expect(!FileManager.default.fileExists(atPath: contents.path) && self.contents(version.url) == "draft")
        let kept = try FileManager.default.attributesOfItem(atPath: version.url.path)[.systemFileNumber] as? Int
        #expect(kept == written, "renamed in, not copied")
        #expect(!FileManager.default.fileExists(atPath: temporary.path), "its emptied folder went")
        let folderContents = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(folderContents == ["today.txt"], "nothing was left beside the item")
    }

    @Test func anotherProcesssPresenterHearsOfAVersionKeptHereAndThisOneOfItsVersion() throws {
        let helper = try GroupsHelper(["present", file.path, "answer"])
        #expect(helper.nextLine() == "presenting")
        let here = presenters.presenter(of: file)
        _ = try keep("kept here")
        #expect(helper.nextLine() == "gained today.txt kept here", "read from the version's file in the other process")

        let adder = try GroupsHelper(["add-version", file.path, "kept there"])
        #expect(adder.nextLine() == "added")
        let messages = here.messages(count: 4)
        #expect(messages.contains("gained today.txt"), "\(messages)")
        #expect(NSFileVersion.otherVersionsOfItem(at: file)?.map { contents($0.url) } == ["kept here", "kept there"])
    }

    // MARK: A store another member planted things in

    /// The item's folder in the store, as the tests find it: the only one there.
    func storeFolder() throws -> URL {
        let store = container.url.appendingPathComponent(".appex-versions")
        let names = try FileManager.default.contentsOfDirectory(atPath: store.path)
        return store.appendingPathComponent(try #require(names.first))
    }

    @Test func aLinkPlantedAsAVersionsFileIsNotFollowedWhenItIsRestored() throws {
        let secret = container.url.appendingPathComponent("../secret-\(UUID().uuidString)").standardizedFileURL
        try Data("the victim's secret".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let version = try keep("honest")
        try FileManager.default.removeItem(at: version.url)
        try FileManager.default.createSymbolicLink(at: version.url, withDestinationURL: secret)
        #expect(throws: (any Error).self) { _ = try version.replaceItem(at: self.file) }
        #expect(contents(file) == "first", "the secret was not copied into the group")
    }

    @Test func anIndexNamingAFileOutsideTheStoreIsRefused() throws {
        _ = try keep("honest")
        let index = try storeFolder().appendingPathComponent("index.json")
        var text = try String(contentsOf: index, encoding: .utf8)
        let file = try #require(text.range(of: "\"file\":\"")).upperBound
        text.insert(contentsOf: "../../", at: file)
        try Data(text.utf8).write(to: index)
        #expect(NSFileVersion.otherVersionsOfItem(at: self.file) == nil, "an index that can't be trusted lists nothing")
        #expect(throws: (any Error).self) { _ = try self.keep("another") }
    }

    @Test func anIndexOverItsLimitIsNotRead() throws {
        _ = try keep("honest")
        let index = try storeFolder().appendingPathComponent("index.json")
        try Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 1).write(to: index)
        #expect(NSFileVersion.otherVersionsOfItem(at: file) == nil)
    }
}
