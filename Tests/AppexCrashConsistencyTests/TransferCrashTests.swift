import AppexCore
import AppexRegistry
import AppexSamples
import AppexSystem
import AppexTestServer
import AppexTesting
import Foundation
import GRDB
import Testing

/// appex-transfers performing a download and an upload with a real HTTP server on loopback,
/// killed before each change it makes to the file system: the tasks' states in the registry,
/// and the file it delivers, are as they were at the kill or advanced by the one change in
/// flight. Run again, it finishes each task once: the whole file delivered, the whole upload
/// taken, and one completion each.
@Suite(.serialized, .enabled(if: CrashTests.areWanted, CrashTests.whyApart)) final class TransferCrashTests: @unchecked Sendable {
    /// Big enough that the download writes its file in over a hundred pieces.
    static let size = 10_000_000
    static let served = GeneratedBytes.data(count: size)
    static let uploadSize = 300_000
    static let uploadPath = "/upload/crash"

    let test: TestHome
    let template: URL
    let server: LoopbackHTTPServer
    var download: TransferTask!
    var upload: TransferTask!
    var uploadBody = Data()

    init() async throws {
        test = try TestHome()
        template = test.scratch.appendingPathComponent("template")
        server = try await LoopbackHTTPServer.start()
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    @Test func aDownloadAndAnUploadKilledAtAnyStepKeepTheirTasksAndFileConsistent() async throws {
        weak var opened: Registry?
        do {
            let registry = try Registry(home: test.home)
            opened = registry
            try await AssembledSamples.install(into: registry, only: ["Notes.app"])
            download = try registry.addTransfer(SampleTransfers.download(server.url("/bytes/\(Self.size)"), into: test.home.groupsDirectory))
            // The file appexd would have spooled for the upload: in the data folder, so each run starts from it.
            let body = test.home.transfersSpoolDirectory.appendingPathComponent("crash-upload")
            try FileManager.default.createDirectory(at: test.home.transfersSpoolDirectory, withIntermediateDirectories: true)
            uploadBody = GeneratedBytes.data(count: Self.uploadSize)
            try uploadBody.write(to: body)
            upload = try registry.addTransfer(SampleTransfers.upload(body, to: server.url(Self.uploadPath)))
        }
        // The thread that installed may let the registry go a moment later: its database is
        // closed (its WAL folded in and removed) before it is copied.
        for _ in 0..<500 where opened != nil { try await Task.sleep(for: .milliseconds(10)) }
        try #require(opened == nil, "the registry was closed")
        try FileManager.default.copyItem(at: test.home.dataDirectory, to: template)
        let report = try await onThread { try self.loop().run() }
        print("transfer: \(report.steps) steps, \(report.kills) kills; as at the kill \(report.asAtKill), one change more \(report.advanced); "
            + "\(report.unobserved) while the database was opened or closed; states left: \(report.statesLeft.map(\.description).sorted())")
        #expect(report.kills >= 200, "the loop killed the transfers at least 200 times")
        #expect(report.kills * 10 >= report.steps * 9, "it was killed before (nearly) every step: a run may make fewer steps than another")
        // The task that ends last may make its last change in the run's last steps, so only
        // the other is sure to be left completed by some kill.
        for kind in [\TransferState.download, \TransferState.upload] {
            #expect(Set(report.statesLeft.map { $0[keyPath: kind].state }).isSuperset(of: ["waiting", "running"]),
                    "kills came before and during each task")
        }
        #expect(report.statesLeft.contains { $0.download.state == "completed" || $0.upload.state == "completed" },
                "kills came after a task had completed")
        #expect(report.failures.isEmpty, "\(report.failures.prefix(5))")
    }

    // MARK: Helpers

    /// What a kill may leave of a task: its state, the bytes it recorded (received for a
    /// download, sent for an upload), the events waiting for the app, and the size of the
    /// delivered file (nil: none).
    struct TaskState: Hashable, CustomStringConvertible {
        var state: String
        var bytes: Int
        var events: [String]
        var delivered: Int?

        var description: String { "\(state) \(bytes) events \(events) delivered \(delivered.map(String.init) ?? "no")" }

        /// Whether `self` is `before` advanced by one transaction of the task's life: started,
        /// progress recorded, completed with its events, or put back to wait by a new process.
        func follows(_ before: TaskState) -> Bool {
            guard delivered == before.delivered else { return false }
            switch (before.state, state) {
            case ("waiting", "running"), ("running", "waiting"): return events == before.events
            case ("running", "running"): return bytes > before.bytes && events == before.events
            case ("running", "completed"): return events.count > before.events.count && events.starts(with: before.events) && events.last == "completed"
            default: return false
            }
        }
    }

    /// Both tasks, as a kill may leave them.
    struct TransferState: Hashable, CustomStringConvertible {
        var download: TaskState
        var upload: TaskState

        var description: String { "download \(download), upload \(upload)" }

        /// Whether `self` is `before` advanced by one transaction: of one task, the other as it was.
        func follows(_ before: TransferState) -> Bool {
            (download.follows(before.download) && upload == before.upload) || (upload.follows(before.upload) && download == before.download)
        }
    }

    private func loop() -> CrashLoop<TransferState> {
        let worker = SteppedProgram(executable: AppexBuild.products.appendingPathComponent("appex-transfers"), arguments: [],
                                    environment: test.environment.merging(["APPEX_TRANSFERS_IDLE_MS": "0"]) { $1 })
        return CrashLoop(
            program: worker,
            reset: {
                try ConfinedFolder.removeTree(atPath: self.test.home.dataDirectory.path)
                try FileManager.default.copyItem(at: self.template, to: self.test.home.dataDirectory)
            },
            observe: { try self.read() },
            recover: {
                _ = try Registry(home: self.test.home)
                try StoreIntegrity.check(self.test.home.registryURL)
                return try self.read()
            },
            isNext: { recovered, atKill, _ in recovered.follows(atKill) },
            rerun: { _ in
                let outcome = try worker.run()
                guard outcome.status == .exited(0) else { throw RerunFailed(arguments: ["appex-transfers"], output: outcome.output) }
            },
            leftovers: {
                let destination = try #require(self.download.destination)
                let bytes = try Data(contentsOf: destination)
                var problems: [String] = []
                if bytes != Self.served { problems.append("the delivered file is not what the server sent (\(bytes.count) bytes)") }
                if FileManager.default.fileExists(atPath: destination.path + ".partial") { problems.append("the .partial file was left") }
                let taken = self.server.uploads(at: Self.uploadPath).last { $0.sha256 != nil }
                if taken?.carries(self.uploadBody) != true { problems.append("the last upload the server took whole is not the file: \(taken.map { "\($0)" } ?? "none")") }
                return problems
            }
        )
    }

    /// The tasks' rows and the delivered file, read without changing anything.
    private func read() throws -> TransferState {
        let (download, upload) = try QuietReader.read(test.home.registryURL) { db in
            (try Self.task(self.download.id, bytes: "bytesReceived", db), try Self.task(self.upload.id, bytes: "bytesSent", db))
        }
        let destination = try #require(self.download.destination)
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? nil
        return TransferState(download: TaskState(state: download.state, bytes: download.bytes, events: download.events, delivered: size),
                             upload: TaskState(state: upload.state, bytes: upload.bytes, events: upload.events, delivered: nil))
    }

    /// A task's state, the byte count in the column `bytes`, and its events.
    private static func task(_ id: UUID, bytes column: String, _ db: Database) throws -> (state: String, bytes: Int, events: [String]) {
        let row = try #require(try Row.fetchOne(db, sql: "SELECT state, \(column) AS bytes FROM transferTask WHERE id = ?", arguments: [id.uuidString]),
                               "the task is in the registry")
        let events = try String.fetchAll(db, sql: "SELECT kind FROM transferEvent WHERE taskID = ? ORDER BY sequence", arguments: [id.uuidString])
        return (row["state"], row["bytes"], events)
    }
}
