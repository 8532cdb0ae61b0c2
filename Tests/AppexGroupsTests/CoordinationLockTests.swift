import AppexCore
import AppexGroups
import AppexTesting
import Foundation
import Glibc
import Testing

/// A container's processes can write its folder, so its coordination lock may have been
/// replaced by anything. appexd (which prepares the container at each launch) and every
/// coordinating process must neither follow a link there nor block on a FIFO
/// (docs/threat-model.md, known gap 4, now closed).
@Suite final class CoordinationLockTests {
    let container: TemporaryDirectory
    let outside: TemporaryDirectory
    var lock: URL { container.url.appendingPathComponent(AppexHome.coordinationLockName) }

    init() throws {
        container = try TemporaryDirectory()
        outside = try TemporaryDirectory()
    }

    func isRegularFile(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    @Test func aLinkInPlaceOfTheLockIsNeitherFollowedNorKept() throws {
        let target = outside.url.appendingPathComponent("planted")
        try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: target)
        try AppexHome.prepareContainer(at: container.url)
        #expect(!FileManager.default.fileExists(atPath: target.path), "nothing was made where the link pointed")
        #expect(isRegularFile(lock), "the lock is a file again")
    }

    @Test func aFIFOInPlaceOfTheLockBlocksNoOne() throws {
        try #require(mkfifo(lock.path, 0o600) == 0)
        // Opening a FIFO to write, with no reader, would wait for ever.
        try AppexHome.prepareContainer(at: container.url)
        #expect(isRegularFile(lock))
        try #require(mkfifo(container.url.appendingPathComponent("again").path, 0o600) == 0)
        try #require(rename(container.url.appendingPathComponent("again").path, lock.path) == 0)
        let item = container.url.appendingPathComponent("notes.txt")
        try Data("x".utf8).write(to: item)
        var read: Data?
        var error: NSError?
        NSFileCoordinator().coordinate(readingItemAt: item, options: [], error: &error) { read = try? Data(contentsOf: $0) }
        #expect(error == nil && read == Data("x".utf8), "a coordinated read goes on: \(String(describing: error))")
        #expect(isRegularFile(lock))
    }

    @Test func aFolderInPlaceOfTheLockIsReportedWithItsPath() throws {
        try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: true)
        #expect {
            try AppexHome.prepareContainer(at: container.url)
        } throws: { error in
            "\(error)".contains(".appex-coordination") && ((error as NSError).userInfo[NSUnderlyingErrorKey] as? POSIXError)?.code == .EISDIR
        }
    }
}
