import AppexRegistry
import AppexSystem
import AppexTestServer
import AppexTesting
import Crypto
import Foundation
import Glibc
import Testing

/// appexd performs background transfers from the registry, and an appexd killed with
/// SIGKILL mid-transfer loses nothing: the next one resumes a download or starts an upload
/// over, and the task ends exactly once.
@Suite final class BackgroundTransferTests {
    let world: FaultWorld
    let registry: Registry
    let server: LoopbackHTTPServer

    init() async throws {
        world = try FaultWorld()
        try await world.install([])
        registry = try Registry(home: world.test.home)
        server = try await LoopbackHTTPServer.start()
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    @Test func aDownloadResumesAfterAppexdIsKilledAndEndsOnce() async throws {
        server.script("/bytes/3000000", [.stall(after: 1_000_000)])
        let task = try registry.addTransfer(transfer(.download, "/bytes/3000000"))
        try await killDaemon(once: task) { $0.bytesReceived >= 1_000_000 }

        let ended = try await restartUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 206 && ended.attempts == 2, "\(ended)")
        let requests = server.seen("/bytes/3000000")
        #expect(requests.count == 2 && requests[1].headers["range"] == "bytes=1000000-", "it asked for the rest: \(requests)")
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 3_000_000 && GeneratedBytes.matches(file))
        let events = try registry.transferEvents(appIdentifier: FaultWorld.appIdentifier, session: "transfers")
        #expect(events.map(\.kind) == [.finishedDownloading, .completed], "the end is recorded once")
    }

    @Test func anUploadStartsOverAfterAppexdIsKilledAndEndsOnce() async throws {
        try FileManager.default.createDirectory(at: world.test.scratch, withIntermediateDirectories: true)
        let file = world.test.scratch.appendingPathComponent("video.mov")
        try Data((0..<4_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 11) }).write(to: file)
        server.script("/upload/video", [.stall(after: 1_000_000)])
        var upload = transfer(.upload, "/upload/video")
        upload.request.method = "PUT"
        upload.bodyFile = file
        let task = try registry.addTransfer(upload)
        try await killDaemon(once: task) { $0.bytesSent >= 1_000_000 }

        let ended = try await restartUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 201 && ended.attempts == 2, "\(ended)")
        let uploads = server.uploads(at: "/upload/video")
        let hash = SHA256.hash(data: try Data(contentsOf: file)).map { String(format: "%02x", $0) }.joined()
        #expect(uploads.count == 2 && uploads.allSatisfy { $0.idempotencyKey == task.id.uuidString }, "the server can tell it's the same upload")
        #expect(uploads.last?.bytes == 4_000_000 && uploads.last?.sha256 == hash, "the server holds every byte")
        let events = try registry.transferEvents(appIdentifier: FaultWorld.appIdentifier, session: "transfers")
        #expect(events.map(\.kind) == [.completed], "the end is recorded once")
    }

    // MARK: Helpers

    func transfer(_ kind: TransferTask.Kind, _ path: String) -> TransferTask {
        TransferTask(appIdentifier: FaultWorld.appIdentifier, sessionIdentifier: "transfers", groupIdentifier: "group.\(FaultWorld.appIdentifier)",
                     owner: FaultWorld.appIdentifier, kind: kind, request: .init(url: server.url(path)),
                     destination: kind == .download ? world.test.scratch.appendingPathComponent("Transfers/download") : nil)
    }

    /// Starts appexd, waits until `task` got as far as `progress` says, and kills appexd
    /// with SIGKILL, leaving the task running in the registry.
    func killDaemon(once task: TransferTask, _ progress: @escaping (TransferTask) -> Bool) async throws {
        try await world.startDaemon()
        let far = await eventually(seconds: 30) { (try? self.registry.transfer(task.id)).flatMap { $0 }.map(progress) ?? false }
        try #require(far, "appexd got the transfer going: \(String(describing: try? registry.transfer(task.id))); its log: \(world.daemonLog)")
        let daemons = world.daemons()
        for pid in daemons { kill(pid, SIGKILL) }
        #expect(await eventually { daemons.allSatisfy(ProcessTree.hasExited) })
        #expect(try registry.transfer(task.id)?.state == .running, "the kill left no time to record anything")
    }

    /// Starts appexd again and waits for `task` to end.
    func restartUntilEnded(_ task: TransferTask) async throws -> TransferTask {
        try await world.startDaemon()
        let ended = await eventually(seconds: 60) { (try? self.registry.transfer(task.id))??.state.isFinal == true }
        try #require(ended, "the next appexd ended the transfer: \(String(describing: try? registry.transfer(task.id))); its log: \(world.daemonLog)")
        return try #require(try registry.transfer(task.id))
    }
}
