import AppexCore
import AppexRegistry
import AppexSystem
import AppexTestServer
import AppexTesting
import Crypto
import Foundation
import Glibc
import Testing

/// appexd has the transfers' process (appex-transfers) perform the registry's transfers.
/// Transfers go on while appexd is killed, and a killed transfers' process loses nothing: the
/// next one resumes a download or starts an upload over, and the task ends exactly once.
@Suite final class BackgroundTransferTests {
    let world: FaultWorld
    let registry: Registry
    let server: LoopbackHTTPServer
    /// appexd checks for a missing transfers' process every 200 ms, which exits 500 ms after its last task.
    static let daemonSettings = ["APPEX_TRANSFERS_CHECK_MS": "200", "APPEX_TRANSFERS_IDLE_MS": "500"]

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

    @Test func aDownloadGoesOnWhileAppexdIsKilled() async throws {
        // The first answer stalls after 1 MB until appexd is gone; then the server drops it,
        // and the next attempt resumes, with no appexd. (A stall ended by the request's
        // timeout instead can end an attempt still waiting for its answer on a busy machine.)
        server.script("/bytes/3000000", [.stall(after: 1_000_000)])
        let task = try registry.addTransfer(transfer(.download, "/bytes/3000000"))
        try await world.startDaemon(Self.daemonSettings)
        try await waitUntil(task) { $0.bytesReceived >= 1_000_000 }
        try await kill(world.daemons())
        server.release("/bytes/3000000")

        let ended = try await waitUntilEnded(task)
        #expect(world.daemons().isEmpty, "no appexd was needed")
        let requests = server.seen("/bytes/3000000")
        #expect(ended.state == .completed && ended.statusCode == 206 && ended.attempts == 2, "\(ended)")
        #expect(requests.count == 2 && requests[1].headers["range"] == "bytes=1000000-", "it asked for the rest: \(requests)")
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 3_000_000 && GeneratedBytes.matches(file))
    }

    @Test func aDownloadResumesAfterAppexdAndItsTransfersProcessAreKilled() async throws {
        server.script("/bytes/3000000", [.stall(after: 1_000_000)])
        let task = try registry.addTransfer(transfer(.download, "/bytes/3000000"))
        try await world.startDaemon(Self.daemonSettings)
        try await waitUntil(task) { $0.bytesReceived >= 1_000_000 }
        try await kill(world.daemons() + world.transferProcesses())
        #expect(try registry.transfer(task.id)?.state == .running, "the kill left no time to record anything")

        try await world.startDaemon(Self.daemonSettings)
        let ended = try await waitUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 206 && ended.attempts == 2, "\(ended)")
        let requests = server.seen("/bytes/3000000")
        #expect(requests.count == 2 && requests[1].headers["range"] == "bytes=1000000-", "it asked for the rest: \(requests)")
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 3_000_000 && GeneratedBytes.matches(file))
        let events = try registry.transferEvents(appIdentifier: FaultWorld.appIdentifier, session: "transfers")
        #expect(events.map(\.kind) == [.finishedDownloading, .completed], "the end is recorded once")
    }

    @Test func anUploadStartsOverWhenItsTransfersProcessIsKilled() async throws {
        try FileManager.default.createDirectory(at: world.test.scratch, withIntermediateDirectories: true)
        let file = world.test.scratch.appendingPathComponent("video.mov")
        try Data((0..<4_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 11) }).write(to: file)
        server.script("/upload/video", [.stall(after: 1_000_000)])
        var upload = transfer(.upload, "/upload/video")
        upload.request.method = "PUT"
        upload.bodyFile = file
        let task = try registry.addTransfer(upload)
        try await world.startDaemon(Self.daemonSettings)
        try await waitUntil(task) { $0.bytesSent >= 1_000_000 }
        let first = world.transferProcesses()
        try await kill(first)

        // The running appexd sees the process gone and starts another.
        let ended = try await waitUntilEnded(task)
        #expect(!world.transferProcesses().contains { first.contains($0) })
        #expect(ended.state == .completed && ended.statusCode == 201 && ended.attempts == 2, "\(ended)")
        let uploads = server.uploads(at: "/upload/video")
        let hash = SHA256.hash(data: try Data(contentsOf: file)).map { String(format: "%02x", $0) }.joined()
        #expect(uploads.count == 2 && uploads.allSatisfy { $0.idempotencyKey == task.id.uuidString }, "the server can tell it's the same upload")
        #expect(uploads.last?.bytes == 4_000_000 && uploads.last?.sha256 == hash, "the server holds every byte")
        let events = try registry.transferEvents(appIdentifier: FaultWorld.appIdentifier, session: "transfers")
        #expect(events.map(\.kind) == [.receivedData, .completed], "the answer and the end are recorded once")
    }

    /// The transfers' process writes its log, `transfers.log`, for as long as it runs; appexd
    /// opens it anew at each start, and first moves a log past appexd's limit to
    /// `transfers.log.1`, so days of transfers don't fill the runtime folder.
    @Test func aTransfersLogPastTheLimitMovesAsideWhenTheProcessStarts() async throws {
        try world.test.home.prepareRuntimeDirectory()
        let log = world.test.home.transfersLogURL
        let old = Data(repeating: UInt8(ascii: "x"), count: 20 * 1024) + Data("\n".utf8)
        try old.write(to: log)
        let task = try registry.addTransfer(transfer(.download, "/bytes/1000"))
        try await world.startDaemon(Self.daemonSettings.merging(["APPEX_LOG_LIMIT_KB": "16"]) { $1 })
        let ended = try await waitUntilEnded(task)
        #expect(ended.state == .completed, "\(ended)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log.path + ".1")) == old, "the old log moved aside whole")
        #expect(!((try? Data(contentsOf: log)) ?? Data()).contains(UInt8(ascii: "x")), "the process started a new log")
    }

    // MARK: Helpers

    func transfer(_ kind: TransferTask.Kind, _ path: String) -> TransferTask {
        TransferTask(appIdentifier: FaultWorld.appIdentifier, sessionIdentifier: "transfers", groupIdentifier: "group.\(FaultWorld.appIdentifier)",
                     owner: FaultWorld.appIdentifier, kind: kind, request: .init(url: server.url(path)),
                     destination: kind == .download ? world.test.home.groupContainer(for: "group.\(FaultWorld.appIdentifier)")
                        .appendingPathComponent("Library/Caches/Transfers/download") : nil)
    }

    /// Waits until `task` got as far as `progress` says.
    func waitUntil(_ task: TransferTask, _ progress: @escaping (TransferTask) -> Bool) async throws {
        let far = await eventually(seconds: 30) { (try? self.registry.transfer(task.id)).flatMap { $0 }.map(progress) ?? false }
        try #require(far, "the transfer got going: \(String(describing: try? registry.transfer(task.id))); \(logs)")
    }

    /// Waits for `task` to end.
    func waitUntilEnded(_ task: TransferTask) async throws -> TransferTask {
        let ended = await eventually(seconds: 60) { (try? self.registry.transfer(task.id))??.state.isFinal == true }
        try #require(ended, "the transfer ended: \(String(describing: try? registry.transfer(task.id))); \(logs)")
        return try #require(try registry.transfer(task.id))
    }

    /// Kills `processes` with SIGKILL, and waits until they are gone.
    func kill(_ processes: [Int32]) async throws {
        try #require(!processes.isEmpty)
        for pid in processes { Glibc.kill(pid, SIGKILL) }
        #expect(await eventually { processes.allSatisfy(ProcessTree.hasExited) })
    }

    var logs: String { "appexd's log: \(world.daemonLog); the transfers' log: \(world.transfersLog)" }
}
