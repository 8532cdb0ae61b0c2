import AppexCore
import AppexHost
import AppexItems
import AppexSandbox
import AppexTesting
import Foundation
import Glibc
import Synchronization
import Testing

/// Files the user picks, under the real appexd and the real sandbox: an extension entitled to
/// `com.apple.security.files.user-selected.read-only` asks, the host's picker answers, and the
/// extension reads the file through a read-only descriptor while its path stays closed.
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: Sandbox.KernelSupport.current.landlockABI != nil))
final class UserSelectedFilesTests {
    let world: FaultWorld
    let picked: URL

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
        let folder = world.root.appendingPathComponent("user-documents")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        picked = folder.appendingPathComponent("picked notes.txt")
        try Data("picked by the user".utf8).write(to: picked)
    }

    /// Installs the `attempts` extension, entitled or not, with `picker` as its host's file
    /// picker, runs `pick TYPE PATH-OF-THE-PICKED-FILE`, and returns its answer.
    func pick(type: String = "public.plain-text", entitled: Bool = true, picker: NSExtension.FilePicker?) async throws -> String {
        try await world.install([FaultWorld.Plugin(fault: "attempts", picksFiles: entitled)])
        let attempts = try await world.extension("attempts")
        attempts.userFilePickerBlock = picker
        let outcome = try await attempts.outcome([textItem("pick \(type) \(picked.path)")])
        return try #require(outcome.items?.first?.attributedContentText?.string, "\(outcome)")
    }

    @Test func anEntitledExtensionReadsThePickedFileThroughAReadOnlyDescriptorAndNotByItsPath() async throws {
        let asked = Mutex<FilePickerRequest?>(nil)
        let file = picked
        let answer = try await pick { _, request in
            asked.withLock { $0 = request }
            return [file]
        }
        #expect(answer == "picked picked notes.txt: picked by the user; write: refused: Bad file descriptor; path: refused: Permission denied")
        let request = try #require(asked.withLock { $0 })
        #expect(request.extensionIdentifier == FaultWorld.identifier("attempts"))
        #expect(request.message == "Pick a file for the fault extension")
        #expect(request.allowedContentTypes == ["public.plain-text"])
        #expect(!request.allowsMultipleSelection)
        #expect(try String(contentsOf: picked, encoding: .utf8) == "picked by the user", "the extension wrote nothing")
    }

    @Test func withoutTheEntitlementTheHostIsNeverAsked() async throws {
        let asked = Atomic(false)
        let file = picked
        let answer = try await pick(entitled: false) { _, _ in
            asked.store(true, ordering: .relaxed)
            return [file]
        }
        #expect(answer == "refused: \(FaultWorld.identifier("attempts")) may not ask the user for files: its Entitlements.plist "
            + "doesn't grant com.apple.security.files.user-selected.read-only")
        let wasAsked = asked.load(ordering: .relaxed)
        #expect(!wasAsked)
    }

    @Test func aHostWithNoPickerSaysSo() async throws {
        let answer = try await pick(picker: nil)
        #expect(answer == "refused: this host offers no file picker: its NSExtension has no userFilePickerBlock")
    }

    @Test func theUserCancellingReachesTheExtensionAsUserCancelled() async throws {
        let answer = try await pick { _, _ in nil }
        #expect(answer == "cancelled")
    }

    @Test func aFileOfATypeNotAskedForOrNotARegularFileIsNotHandedOver() async throws {
        let file = picked
        let wrongType = try await pick(type: "public.image") { _, _ in [file] }
        #expect(wrongType == "refused: \(picked.path) is public.plain-text, not one of public.image")

        let folder = picked.deletingLastPathComponent()
        let notAFile = try await pick(type: "any") { _, _ in [folder] }
        #expect(notAFile.hasPrefix("refused: "), "\(notAFile)")
        #expect(notAFile.contains(folder.path), "\(notAFile)")
    }
}
