import AppexCore
import AppexGroups
import AppexLocking
import AppexTesting
import Foundation
import Glibc
import Testing

/// A coordinated read `forUploading` hands its accessor a snapshot, as Apple's does: a copy
/// of a file, the zip of a folder, made under the read's claim, which ends before the
/// accessor runs, so a long upload holds up no writer; the snapshot goes when the accessor
/// returns.
@Suite(.timeLimit(.minutes(2))) final class UploadingReadTests {
    let container: TemporaryDirectory
    let file: URL

    init() throws {
        container = try TemporaryDirectory()
        try AppexHome.prepareContainer(at: container.url)
        file = container.url.appendingPathComponent("report.txt")
        try Data("as it was".utf8).write(to: file)
    }

    @Test func aFilesSnapshotIsACopyThatGoesWhenTheAccessorReturns() throws {
        var error: NSError?
        var seen: URL?
        NSFileCoordinator().coordinate(readingItemAt: file, options: .forUploading, error: &error) { url in
            seen = url
            #expect(url != file)
            #expect(url.lastPathComponent == "report.txt")
            #expect((try? String(contentsOf: url, encoding: .utf8)) == "as it was")
            try? Data("changed in the snapshot".utf8).write(to: url)
        }
        #expect(error == nil)
        let snapshot = try #require(seen)
        #expect(!FileManager.default.fileExists(atPath: snapshot.path))
        #expect(!FileManager.default.fileExists(atPath: snapshot.deletingLastPathComponent().path))
        #expect(try String(contentsOf: file, encoding: .utf8) == "as it was")
    }

    @Test func aFoldersSnapshotIsItsZip() throws {
        let package = container.url.appendingPathComponent("Trip.notes")
        try FileManager.default.createDirectory(at: package.appendingPathComponent("Pages"), withIntermediateDirectories: true)
        try Data("day one".utf8).write(to: package.appendingPathComponent("Pages/1.txt"))
        var error: NSError?
        var zip: Data?
        var name: String?
        NSFileCoordinator().coordinate(readingItemAt: package, options: .forUploading, error: &error) { url in
            name = url.lastPathComponent
            zip = try? Data(contentsOf: url)
        }
        #expect(error == nil)
        #expect(name == "Trip.notes.zip")
        let bytes = try #require(zip)
        #expect(bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]), "a zip's local header comes first")
        for entry in ["Trip.notes/", "Trip.notes/Pages/", "Trip.notes/Pages/1.txt"] {
            #expect(bytes.range(of: Data(entry.utf8)) != nil, "\(entry) is in the zip")
        }
        #expect(bytes.range(of: Data("day one".utf8)) != nil)
    }

    /// The point of the option: another process's coordinated write of the item goes ahead
    /// while the accessor still uploads. Before, the writer waited until the accessor returned.
    @Test func aWriterIsNotHeldUpWhileTheAccessorUploads() throws {
        var error: NSError?
        var writerLine: String?
        NSFileCoordinator().coordinate(readingItemAt: file, options: .forUploading, error: &error) { url in
            guard let writer = try? GroupsHelper(["coordinated-write", file.path, "written meanwhile"]) else { return }
            writerLine = writer.nextLine(within: 20)
            _ = writer.finish()
            #expect((try? String(contentsOf: url, encoding: .utf8)) == "as it was", "the snapshot is as it was when the claim was held")
        }
        #expect(error == nil)
        #expect(writerLine == "written")
        #expect(try String(contentsOf: file, encoding: .utf8) == "written meanwhile")
    }

    @Test func theAsynchronousFormPointsTheIntentAtTheSnapshot() throws {
        let intent = NSFileAccessIntent.readingIntent(with: file, options: .forUploading)
        let seen = Locked<(URL, String?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let queue = OperationQueue()
        NSFileCoordinator().coordinate(with: [intent], queue: queue) { error in
            #expect(error == nil)
            seen.withLock { $0 = (intent.url, try? String(contentsOf: intent.url, encoding: .utf8)) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        queue.waitUntilAllOperationsAreFinished()
        let (url, text) = try #require(seen.withLock { $0 })
        #expect(url != file)
        #expect(text == "as it was")
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func anItemThatCantBeSnapshottedFailsTheReadWithWhyAndTheAccessorNeverRuns() {
        let pipe = container.url.appendingPathComponent("pipe")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        var error: NSError?
        var ran = false
        NSFileCoordinator().coordinate(readingItemAt: pipe, options: .forUploading, error: &error) { _ in ran = true }
        #expect(!ran)
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == CocoaError.fileReadUnknown.rawValue)
        #expect(error?.localizedDescription.contains("for uploading") == true, "\(String(describing: error))")
        #expect(error?.localizedDescription.contains("FIFO") == true)
        // The claim was let go: a write goes ahead.
        var writeError: NSError?
        NSFileCoordinator().coordinate(writingItemAt: pipe, options: .forDeleting, error: &writeError) { _ in }
        #expect(writeError == nil)
    }

    /// Another member of the group replaces a package the app uploads with a link to the
    /// user's files: the read for uploading refuses the link rather than zip what it leads
    /// to. Read with `.resolvesSymbolicLink`, the app chooses to follow it.
    @Test func aLinkPutWhereTheItemWasIsNotFollowedIntoTheSnapshot() throws {
        let secrets = try TemporaryDirectory()
        try Data("private key".utf8).write(to: secrets.url.appendingPathComponent("id_ed25519"))
        let package = container.url.appendingPathComponent("Trip.notes")
        try FileManager.default.createSymbolicLink(atPath: package.path, withDestinationPath: secrets.url.path)
        var error: NSError?
        var ran = false
        NSFileCoordinator().coordinate(readingItemAt: package, options: .forUploading, error: &error) { _ in ran = true }
        #expect(!ran)
        #expect(error?.localizedDescription.contains("symbolic link") == true, "\(String(describing: error))")
        var followed: String?
        NSFileCoordinator().coordinate(readingItemAt: package, options: [.forUploading, .resolvesSymbolicLink], error: &error) { url in
            followed = url.lastPathComponent
        }
        #expect(followed == secrets.url.lastPathComponent + ".zip")
    }
}
