@testable import AppexItems
import AppexLocking
import AppexSystem
import Foundation
import Glibc
import Testing

/// A file from another process arrives as a link to its descriptor; copying it, or reading it
/// as data, goes through the descriptor, so it works in a sandbox that closes the file's path.
@Suite struct DescriptorLinkTests {
    @Test(.enabled(if: LandlockRuleset.kernelABI != nil))
    func aLinkedFileIsCopiedAndReadThroughItsDescriptorWhereItsPathIsClosed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appex-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = folder.appendingPathComponent("photo.jpg")
        try Data("the picked photo".utf8).write(to: original)
        let descriptor = try FileDescriptor.open(original.path, flags: O_RDONLY | O_CLOEXEC)
        defer { descriptor.close() }
        let link = folder.appendingPathComponent("link.jpg")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/proc/self/fd/\(descriptor.rawValue)")

        // On a thread of its own, with every read by path refused, as in an extension's sandbox.
        let result = Locked<(path: Data?, copy: TemporaryFile?, data: Data?, error: String?)>((nil, nil, nil, nil))
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            let closed = ProcessRestrictions(landlock: LandlockRuleset(abi: 1, handledFilesystem: [.readFile, .readDirectory]))
            do {
                try closed.applyToCallingThread()
                let path = FileManager.default.contents(atPath: link.path)
                let copy = try TemporaryFile.copying(link, in: folder)
                let data = try DescriptorLink.descriptor(behind: link)?.mapContents()
                result.withLock { $0 = (path, copy, data, nil) }
            } catch {
                result.withLock { $0.error = "\(error)" }
            }
        }.start()
        done.wait()
        let (path, copy, data, error) = result.withLock { $0 }
        #expect(error == nil, "\(error ?? "")")
        #expect(path == nil, "the path is closed on that thread")
        // Read back here, on a thread whose reads are not restricted.
        #expect(copy.map { try? String(contentsOf: $0.url, encoding: .utf8) } == "the picked photo")
        copy?.remove()
        #expect(data == Data("the picked photo".utf8))
    }
}
