import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// A copy of a tree its author may still change is a real, read-only tree: links stay links,
/// nothing that isn't a folder, file or link is opened, the limits hold, and removal never
/// follows a link planted inside.
@Suite(.timeLimit(.minutes(1))) final class FolderCopyTests {
    let scratch: TemporaryDirectory
    let source: URL
    let destination: URL
    let limits = FolderCopy.Limits(files: 100, depth: 4, bytes: 1 << 20)

    init() throws {
        scratch = try TemporaryDirectory()
        source = scratch.url.appendingPathComponent("source")
        destination = scratch.url.appendingPathComponent("copy")
        for folder in [source, destination] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    }

    func copy(_ limits: FolderCopy.Limits? = nil) throws {
        try FolderCopy(limits: limits ?? self.limits).copy(from: ConfinedFolder(source.path), into: ConfinedFolder(destination.path))
    }

    @Test func foldersFilesAndLinksAreCopiedAndLeftReadOnly() throws {
        try FileManager.default.createDirectory(at: source.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try Data("#!/bin/sh\n".utf8).write(to: source.appendingPathComponent("bin/tool"))
        chmod(source.appendingPathComponent("bin/tool").path, 0o700)
        try Data("notes".utf8).write(to: source.appendingPathComponent("notes.txt"))
        try FileManager.default.createSymbolicLink(atPath: source.appendingPathComponent("latest").path, withDestinationPath: "bin/tool")
        try copy()
        #expect(try String(contentsOf: destination.appendingPathComponent("notes.txt"), encoding: .utf8) == "notes")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: destination.appendingPathComponent("latest").path) == "bin/tool")
        func mode(_ path: String) throws -> Int { try #require(FileManager.default.attributesOfItem(atPath: destination.appendingPathComponent(path).path)[.posixPermissions] as? Int) }
        #expect(try [mode("notes.txt"), mode("bin/tool"), mode("bin"), mode(".")] == [0o444, 0o555, 0o555, 0o555])
    }

    @Test func aFIFOStopsTheCopyWithoutBeingWaitedOn() throws {
        #expect(mkfifo(source.appendingPathComponent("pipe").path, 0o600) == 0)
        let error = failure { try copy() }
        #expect(error?.errno == EINVAL, "\(String(describing: error))")
        #expect(error?.description.contains("pipe, a device, FIFO or socket") == true, "\(String(describing: error))")
    }

    /// A sparse file of a terabyte takes no disk in the source; copied, it would fill the disk.
    @Test func moreBytesThanTheLimitStopTheCopyBeforeTheyAreWritten() throws {
        let file = source.appendingPathComponent("sparse")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        #expect(truncate(file.path, 1 << 40) == 0)
        let error = failure { try copy() }
        #expect(error?.errno == EFBIG, "\(String(describing: error))")
        #expect((try? FileManager.default.attributesOfItem(atPath: destination.appendingPathComponent("sparse").path)) == nil)
    }

    @Test func tooManyFilesOrFoldersTooDeepStopTheCopy() throws {
        for index in 0..<5 { try Data().write(to: source.appendingPathComponent("f\(index)")) }
        #expect(failure { try copy(FolderCopy.Limits(files: 4, depth: 4, bytes: 1 << 20)) }?.errno == EFBIG)
        let deep = scratch.url.appendingPathComponent("deep")
        try FileManager.default.createDirectory(at: deep.appendingPathComponent("a/b/c/d/e/f"), withIntermediateDirectories: true)
        let fresh = scratch.url.appendingPathComponent("fresh")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
        let error = failure { try FolderCopy(limits: limits).copy(from: ConfinedFolder(deep.path), into: ConfinedFolder(fresh.path)) }
        #expect(error?.errno == ELOOP, "\(String(describing: error))")
    }

    /// What an extension plants in its container before it is removed: a link to the user's
    /// files, which removal must take away without following.
    @Test func removingATreeRemovesItsLinksAndNeverWhatTheyLeadTo() throws {
        let victim = scratch.url.appendingPathComponent("users-files")
        try FileManager.default.createDirectory(at: victim.appendingPathComponent("inner"), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: victim.appendingPathComponent("inner/keep.txt"))
        try FileManager.default.createDirectory(at: source.appendingPathComponent("Library"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: source.appendingPathComponent("Library/home").path, withDestinationPath: victim.path)
        try FileManager.default.createSymbolicLink(atPath: source.appendingPathComponent("inner").path, withDestinationPath: victim.appendingPathComponent("inner").path)
        try copy()
        try ConfinedFolder.removeTree(atPath: destination.path)
        try ConfinedFolder.removeTree(atPath: source.path)
        #expect(!FileManager.default.fileExists(atPath: destination.path) && !FileManager.default.fileExists(atPath: source.path))
        #expect(try String(contentsOf: victim.appendingPathComponent("inner/keep.txt"), encoding: .utf8) == "keep")
    }
}
