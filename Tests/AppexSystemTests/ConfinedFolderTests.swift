import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// Paths inside a folder a less trusted process can change resolve only inside it, through
/// no link, and only to regular files where a file is wanted.
@Suite final class ConfinedFolderTests {
    let scratch: TemporaryDirectory
    let inside: URL
    let outside: URL

    init() throws {
        scratch = try TemporaryDirectory()
        inside = scratch.url.appendingPathComponent("container")
        outside = scratch.url.appendingPathComponent("outside")
        for folder in [inside, outside] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try Data("private".utf8).write(to: outside.appendingPathComponent("secret"))
    }

    /// The error `body` failed with, or nil if it didn't.
    func errno(_ body: () throws -> Void) -> Int32? {
        do {
            try body()
            return nil
        } catch {
            return (error as? SystemError)?.errno ?? -1
        }
    }

    @Test func filesAndFoldersInsideAreMadeReadAndRenamed() throws {
        let container = try ConfinedFolder(inside.path)
        let folder = try container.folder("Library/Caches/Transfers", creating: true)
        let file = try folder.openFile("a.partial", flags: O_WRONLY | O_CREAT | O_TRUNC)
        try file.write(Array("hello".utf8))
        file.close()
        #expect(folder.sizeOfFile("a.partial") == 5)
        try folder.rename("a.partial", to: "a")
        #expect(try String(contentsOf: inside.appendingPathComponent("Library/Caches/Transfers/a"), encoding: .utf8) == "hello")
        ConfinedFolder.removeFile(atPath: inside.path + "/Library/Caches/Transfers/a", below: inside.path)
        #expect(!FileManager.default.fileExists(atPath: inside.appendingPathComponent("Library/Caches/Transfers/a").path))
        #expect(folder.sizeOfFile("a") == nil)
    }

    @Test func aLinkAtTheFileIsRefusedAndNeverWrittenThrough() throws {
        let secret = outside.appendingPathComponent("secret")
        try FileManager.default.createSymbolicLink(at: inside.appendingPathComponent("file"), withDestinationURL: secret)
        let container = try ConfinedFolder(inside.path)
        #expect(errno { _ = try container.openFile("file", flags: O_WRONLY | O_CREAT | O_TRUNC) } == ELOOP)
        #expect(container.sizeOfFile("file") == nil, "a link's target is not counted")
        container.removeFile("file")
        #expect(try String(contentsOf: secret, encoding: .utf8) == "private", "the link went, not its target")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: inside.appendingPathComponent("file").path)) == nil)
    }

    @Test func aLinkAtAFolderOnTheWayIsRefused() throws {
        try FileManager.default.createDirectory(at: inside.appendingPathComponent("Library"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: inside.appendingPathComponent("Library/Caches"), withDestinationURL: outside)
        let container = try ConfinedFolder(inside.path)
        #expect(errno { _ = try container.folder("Library/Caches", creating: true) } == ELOOP)
        #expect(errno { _ = try container.openFile("Library/Caches/secret") } == ELOOP)
        ConfinedFolder.removeFile(atPath: inside.path + "/Library/Caches/secret", below: inside.path)
        #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("secret").path))
    }

    @Test func aPathOutOfTheFolderIsRefused() throws {
        let container = try ConfinedFolder(inside.path)
        #expect(errno { _ = try container.openFile("../outside/secret") } == EXDEV)
        #expect(errno { _ = try container.openFile("/etc/hostname") } == EXDEV)
        #expect(errno { try container.rename("../outside/secret", to: "taken") } == EINVAL)
        #expect(ConfinedFolder.relativePath(of: inside.path + "/../outside/secret", below: inside.path) == nil)
        #expect(ConfinedFolder.relativePath(of: outside.path + "/secret", below: inside.path) == nil)
        #expect(ConfinedFolder.relativePath(of: inside.path + "/a/b", below: inside.path) == "a/b")
    }

    @Test func aFIFOOrAFolderWhereAFileShouldBeIsRefusedWithoutWaiting() throws {
        #expect(mkfifo(inside.appendingPathComponent("fifo").path, 0o600) == 0)
        try FileManager.default.createDirectory(at: inside.appendingPathComponent("folder"), withIntermediateDirectories: true)
        let container = try ConfinedFolder(inside.path)
        // Opening a FIFO to write would wait for a reader for ever; it is refused at once.
        #expect(errno { _ = try container.openFile("fifo", flags: O_WRONLY | O_CREAT) } == ENXIO)
        #expect(errno { _ = try container.openFile("fifo", flags: O_RDONLY) } == EINVAL)
        #expect(errno { _ = try container.openFile("folder") } == EISDIR)
        #expect(container.sizeOfFile("fifo") == nil && container.sizeOfFile("folder") == nil)
    }

    @Test func theFolderItselfMustNotBeALink() throws {
        let link = scratch.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        #expect(errno { _ = try ConfinedFolder(link.path) } == ENOTDIR)
    }
}
