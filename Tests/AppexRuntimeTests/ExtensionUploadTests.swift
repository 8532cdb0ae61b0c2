import AppexCore
import AppexHost
import AppexItems
import AppexRegistry
import AppexSamples
import AppexTestServer
import AppexTesting
import Crypto
import Foundation
import Testing

/// A Share extension that hands a large upload to a background session and completes at
/// once, under the real appexd, in its sandbox: the extension ends, the upload goes on, and
/// appexd wakes the containing app with the events.
@Suite(.timeLimit(.minutes(3))) final class ExtensionUploadTests {
    let world: FaultWorld
    let server: LoopbackHTTPServer
    static let group = "group.com.example.faults"
    static let session = "com.example.faults.uploads"

    init() async throws {
        world = try FaultWorld()
        server = try await LoopbackHTTPServer.start()
        let share = FaultWorld.Plugin(fault: "uploadsInBackground", point: ExtensionPoint.share.id, groups: [Self.group], connects: true)
        try await world.install([share], appExecutable: AppexBuild.products.appendingPathComponent("AppexGroupsHelper"), appGroups: [Self.group])
        try await world.startDaemon(BackgroundTransferTests.daemonSettings.merging(
            ["HELPER_WAKE_LOG": wakeLog.path, "HELPER_GROUP": Self.group]) { $1 })
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    var wakeLog: URL { world.test.scratch.appendingPathComponent("wake.log") }

    @Test func anExtensionWithoutTheNetworkEntitlementHasNoBackgroundSession() async throws {
        // appex-transfers reaches the network for an extension, so the extension must be
        // allowed to reach it itself.
        let offline = try FaultWorld()
        let share = FaultWorld.Plugin(fault: "uploadsInBackground", point: ExtensionPoint.share.id, groups: [Self.group])
        try await offline.install([share], appExecutable: AppexBuild.products.appendingPathComponent("AppexGroupsHelper"), appGroups: [Self.group])
        try await offline.startDaemon(BackgroundTransferTests.daemonSettings)
        try FileManager.default.createDirectory(at: offline.test.scratch, withIntermediateDirectories: true)
        let file = offline.test.scratch.appendingPathComponent("note.txt")
        try Data("a note".utf8).write(to: file)
        let request = NSExtensionItem()
        request.attributedContentText = NSAttributedString(string: "\(server.url("/upload/note").absoluteString)\n\(Self.group)")
        request.attachments = [NSItemProvider(contentsOf: file, contentType: .plainText, openInPlace: true)]
        let outcome = try await offline.extension("uploadsInBackground").outcome([request])
        let said = try #require(outcome.items?.first?.attributedContentText?.string, "\(outcome) \(offline.daemonLog)")
        #expect(said.hasPrefix("refused: ") && said.contains("has no com.apple.security.network.client entitlement"), "\(said)")
        #expect(try Registry(home: offline.test.home).transfers(session: Self.session).isEmpty)
        #expect(server.seen("/upload/note").isEmpty)
    }

    @Test func anExtensionsUploadOutlivesItAndTheAppIsWokenWithItsEvents() async throws {
        try FileManager.default.createDirectory(at: world.test.scratch, withIntermediateDirectories: true)
        let file = world.test.scratch.appendingPathComponent("video.mov")
        let bytes = Data((0..<24_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        try bytes.write(to: file)
        let request = NSExtensionItem()
        request.attributedContentText = NSAttributedString(string: "\(server.url("/upload/video").absoluteString)\n\(Self.group)")
        request.attachments = [NSItemProvider(contentsOf: file, contentType: .movie, openInPlace: true)]

        // The server holds the upload after 1 MB until the extension has gone, so that the
        // task ends with no process attached, whatever the machine's speed.
        server.script("/upload/video", [.hold(after: 1_000_000)])
        let outcome = try await world.extension("uploadsInBackground").outcome([request])
        let said = try #require(outcome.items?.first?.attributedContentText?.string, "\(outcome) \(world.daemonLog)")
        #expect(said == "uploading as task 1", "\(world.daemonLog)")

        // The extension is ended as usual; its upload goes on without it.
        let ended = await eventually(seconds: 20) { self.world.extensionProcesses().isEmpty }
        #expect(ended, "the extension's process is gone")
        let attached = try Registry(home: world.test.home).transfers(session: Self.session).first
        #expect(attached?.state == .running && (attached?.bytesSent ?? 0) < Int64(bytes.count), "the upload goes on without it: \(String(describing: attached))")
        server.release("/upload/video")
        let registry = try Registry(home: world.test.home)
        let done = await eventually(seconds: 60) { (try? registry.transfers(session: Self.session))?.first?.state.isFinal == true }
        try #require(done, "\(String(describing: try? registry.transfers(session: Self.session))); \(world.transfersLog)")
        let task = try #require(try registry.transfers(session: Self.session).first)
        #expect(task.state == .completed && task.statusCode == 201 && task.owner == FaultWorld.identifier("uploadsInBackground"), "\(task)")
        let upload = try #require(server.uploads(at: "/upload/video").last)
        #expect(upload.bytes == bytes.count && upload.sha256 == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(),
                "the server holds every byte")

        // appexd wakes the containing app, which makes the session again and hears the events.
        let woken = await eventually(seconds: 30) { ((try? String(contentsOf: self.wakeLog, encoding: .utf8)) ?? "").contains("finished events") }
        try #require(woken, "\(world.daemonLog)")
        let lines = try String(contentsOf: wakeLog, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("progress ") }
        #expect(lines == ["woken for \(Self.session)", "event completed 1 completed 201", "finished events"])
        let acknowledged = await eventually {
            (try? registry.transferEvents(appIdentifier: FaultWorld.appIdentifier, session: Self.session).isEmpty) == true
        }
        #expect(acknowledged, "\(String(describing: try? registry.transferEvents(appIdentifier: FaultWorld.appIdentifier, session: Self.session))) \(world.daemonLog)")
        #expect(server.uploads(at: "/upload/video").count == 1, "uploaded once")
    }
}
