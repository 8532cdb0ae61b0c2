import AppexCore
import AppexHost
import AppexIPC
import AppexItems
import AppexLocking
import AppexSandbox
import AppexSystem
import AppexTesting
import AppexWire
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
        let asked = Locked<FilePickerRequest?>(nil)
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

    /// A host that answers `PickFiles` naming descriptor slots past those it sent, or with a
    /// descriptor that is no regular file: the extension gets nothing the host did not send,
    /// and is told what was dropped and why; the host's next answer, a proper one, is served.
    @Test func aHostNamingSlotsPastItsDescriptorsHasThoseFilesDroppedAndTheExtensionToldWhy() async throws {
        let (client, file, pick, line) = try await handMadeHost()
        defer { client.close(); file.close() }
        let folder = try FileDescriptor.open(picked.deletingLastPathComponent().path, flags: O_RDONLY | O_DIRECTORY)
        defer { folder.close() }

        let first = UUID()
        let started = try await client.begin(first, extension: FaultWorld.identifier("attempts"))
        async let hostile = client.request(first, on: started.sessionID, items: pick)
        try await client.answerLoad(on: started.sessionID, with: line)
        try await answerPick(on: client, with: [
            PickedFile(slot: 0, filename: "a folder", typeIdentifier: "public.folder"),
            PickedFile(slot: 1, filename: "one past", typeIdentifier: "public.plain-text"),
            PickedFile(slot: Int(Int32.max), filename: "far past", typeIdentifier: "public.plain-text"),
        ], descriptors: [folder])
        #expect(Self.text(of: try await hostile) == "refused: none of the files the host picked could be handed over: a folder is not a "
            + "regular file; one past names descriptor slot 1, but the answer carried 1; far past names descriptor slot 2147483647, "
            + "but the answer carried 1")
        try client.daemon.send(.endRequest(RequestReference(first)))

        let second = UUID()
        async let proper = client.requestStraight(second, on: started.sessionID, items: pick)
        try await client.answerLoad(on: started.sessionID, with: line)
        try await answerPick(on: client, with: [PickedFile(slot: 0, filename: "picked notes.txt", typeIdentifier: "public.plain-text")],
                             descriptors: [file])
        #expect(Self.text(of: try await proper) == "picked picked notes.txt: picked by the user; write: refused: Bad file descriptor; "
            + "path: refused: Permission denied")
    }

    /// A request sent straight on the session reaches the extension by the session and appexd
    /// by the host's `RequestBegun`, on another socket, so a loaded appexd may read the
    /// extension's `PickFiles` first. Here the host sends the `RequestBegun` late on purpose,
    /// and then, for a third request, never.
    @Test func anAskForARequestWhoseRequestBegunComesLaterWaitsForItAndOneThatNeverComesIsRefused() async throws {
        let (client, file, pick, line) = try await handMadeHost()
        defer { client.close(); file.close() }
        let started = try await liveSession(of: client, picking: file, items: pick, line: line)

        let late = UUID()
        async let waited = client.request(late, on: started.sessionID, items: pick)
        try await client.answerLoad(on: started.sessionID, with: line)
        try await Task.sleep(for: .milliseconds(300))
        try client.daemon.send(.requestBegun(RequestBegun(requestID: late, sessionID: started.sessionID)))
        try await answerPick(on: client, with: [PickedFile(slot: 0, filename: "picked notes.txt", typeIdentifier: "public.plain-text")],
                             descriptors: [file])
        #expect(Self.text(of: try await waited)?.hasPrefix("picked picked notes.txt: picked by the user") == true)

        // The late request ends only afterwards: a process with no request appexd knows of is
        // idle, and would be ended about when the grace ends, racing the refusal.
        let never = UUID()
        let asked = ContinuousClock.now
        async let refused = client.request(never, on: started.sessionID, items: pick)
        try await client.answerLoad(on: started.sessionID, with: line)
        let answer = Self.text(of: try await refused)
        #expect(answer == "refused: request \(never) is not running in \(FaultWorld.identifier("attempts"))")
        #expect(ContinuousClock.now - asked >= .seconds(10), "appexd waited its grace for the RequestBegun before refusing")
        try client.daemon.send(.endRequest(RequestReference(late)))
    }

    /// One wait at a time for each process: a second ask for a request appexd hasn't heard
    /// of, while one waits, is refused at once, so made-up requests cost appexd one wait. The
    /// one that waits still goes on when its `RequestBegun` comes, after the other's refusal:
    /// so the other was refused within the first's grace, not after a grace of its own.
    @Test func aSecondAskWhileOneWaitsForItsRequestBegunIsRefusedAtOnce() async throws {
        let (client, file, pick, line) = try await handMadeHost()
        defer { client.close(); file.close() }
        let session = try await liveSession(of: client, picking: file, items: pick, line: line).sessionID

        // Two requests straight on the session, with no RequestBegun: the extension asks for
        // both at once, and either ask may reach appexd first.
        let asks = [UUID(), UUID()]
        try await withThrowingTaskGroup(of: (UUID, WireMessage?).self) { group in
            for requestID in asks {
                group.addTask { (requestID, try await client.request(requestID, on: session, items: pick)) }
                try await client.answerLoad(on: session, with: line)
            }
            let (refusedID, refused) = try #require(try await group.next())
            #expect(Self.text(of: refused) == "refused: request \(refusedID) is not running in \(FaultWorld.identifier("attempts"))")
            let waitingID = try #require(asks.first { $0 != refusedID })
            try client.daemon.send(.requestBegun(RequestBegun(requestID: waitingID, sessionID: session)))
            try await answerPick(on: client, with: [PickedFile(slot: 0, filename: "picked notes.txt", typeIdentifier: "public.plain-text")],
                                 descriptors: [file])
            let (_, waited) = try #require(try await group.next())
            #expect(Self.text(of: waited)?.hasPrefix("picked picked notes.txt: picked by the user") == true, "\(String(describing: waited))")
        }
    }

    /// Begins a request through appexd and answers its load and its pick, so that the process
    /// runs and its session is live, then ends it.
    func liveSession(of client: RawClient, picking file: FileDescriptor, items pick: [WireItem], line: Payload) async throws -> RequestStarted {
        let first = UUID()
        let started = try await client.begin(first, extension: FaultWorld.identifier("attempts"))
        async let warmUp = client.request(first, on: started.sessionID, items: pick)
        try await client.answerLoad(on: started.sessionID, with: line)
        try await answerPick(on: client, with: [PickedFile(slot: 0, filename: "picked notes.txt", typeIdentifier: "public.plain-text")],
                             descriptors: [file])
        _ = try await warmUp
        try client.daemon.send(.endRequest(RequestReference(first)))
        return started
    }

    /// Installs the entitled `attempts` extension and connects a host that speaks the protocol
    /// by hand. Returns it, a descriptor of the file to pick, and a request's items: one
    /// attachment of text, whose content (`line`, loaded from the host) asks for the file.
    func handMadeHost() async throws -> (client: RawClient, file: FileDescriptor, items: [WireItem], line: Payload) {
        try await world.install([FaultWorld.Plugin(fault: "attempts", picksFiles: true)])
        let client = try await RawClient.connect(home: world.test.home, version: WireVersion.current)
        let file = try FileDescriptor.open(picked.path, flags: O_RDONLY)
        let items = [WireItem(attachments: [WireAttachment(providerID: 1, representations: [WireRepresentation(typeIdentifier: "public.plain-text", kind: .data)])])]
        return (client, file, items, Payload.data(Data("pick any \(picked.path)".utf8)))
    }

    /// Waits for appexd to ask `client` to pick files, and answers with `files` and `descriptors`.
    func answerPick(on client: RawClient, with files: [PickedFile], descriptors: [FileDescriptor]) async throws {
        guard case .pickFiles(let asked)? = await client.nextFromDaemon(matching: { if case .pickFiles = $0 { true } else { false } }) else {
            throw WorldError("appexd never asked the host to pick files")
        }
        try client.daemon.send(.pickedFiles(PickedFiles(call: asked.call, files: files)), descriptors: descriptors)
    }

    static func text(of answer: WireMessage?) -> String? {
        guard case .completeRequest(let outcome)? = answer else { return "no outcome: \(String(describing: answer))" }
        return outcome.items.first?.attributedContentText?.text
    }
}
