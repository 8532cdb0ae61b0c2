import AppexCore
import AppexRegistry
import AppexSamples
import AppexSystem
import AppexTestServer
import AppexTesting
import Foundation
import GRDB
import Testing

/// appex-transfers performing a download from a real HTTP server on loopback, killed before
/// each change it makes to the file system: its task's state in the registry, and the file
/// it delivers, are as they were at the kill or advanced by the one change in flight. Run
/// again, it finishes the task once, with the whole file and one event.
@Suite(.serialized, .enabled(if: CrashTests.areWanted, CrashTests.whyApart)) final class TransferCrashTests: @unchecked Sendable {
    static let size = 200_000

    let test: TestHome
    let template: URL
    let server: LoopbackHTTPServer
    var task: TransferTask!

    init() async throws {
        test = try TestHome()
        template = test.scratch.appendingPathComponent("template")
        server = try await LoopbackHTTPServer.start()
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    @Test func aDownloadKilledAtAnyStepKeepsItsTaskAndFileConsistent() async throws {
        weak var opened: Registry?
        do {
            let registry = try Registry(home: test.home)
            opened = registry
            try await AssembledSamples.install(into: registry, only: ["Notes.app"])
            task = try registry.addTransfer(SampleTransfers.download(server.url("/bytes/\(Self.size)"), into: test.home.groupsDirectory))
        }
        // The thread that installed may let the registry go a moment later: its database is
        // closed (its WAL folded in and removed) before it is copied.
        for _ in 0..<500 where opened != nil { try await Task.sleep(for: .milliseconds(10)) }
        try #require(opened == nil, "the registry was closed")
        try FileManager.default.copyItem(at: test.home.dataDirectory, to: template)
        let report = try await onThread { try self.loop().run() }
        print("transfer: \(report.steps) steps, \(report.kills) kills; as at the kill \(report.asAtKill), one change more \(report.advanced); "
            + "\(report.unobserved) while the database was opened or closed; states left: \(report.statesLeft.map(\.description).sorted())")
        #expect(report.steps > 20, "a download writes its file and its task's state in many steps")
        #expect(report.kills * 10 >= report.steps * 9, "it was killed before (nearly) every step: a run may make fewer steps than another")
        #expect(Set(report.statesLeft.map(\.state)).isSuperset(of: ["waiting", "running", "completed"]), "kills came in every part of the task's life")
        #expect(report.failures.isEmpty, "\(report.failures.prefix(5))")
    }

    // MARK: Helpers

    /// What a kill may leave of the task: its state, the bytes it recorded, the events
    /// waiting for the app, and the size of the delivered file (nil: none).
    struct TransferState: Hashable, CustomStringConvertible {
        var state: String
        var bytesReceived: Int
        var events: [String]
        var delivered: Int?

        var description: String { "\(state) \(bytesReceived) events \(events) delivered \(delivered.map(String.init) ?? "no")" }

        /// Whether `self` is `before` advanced by one transaction of the task's life: started,
        /// progress recorded, completed with its events, or put back to wait by a new process.
        func follows(_ before: TransferState) -> Bool {
            guard delivered == before.delivered else { return false }
            switch (before.state, state) {
            case ("waiting", "running"), ("running", "waiting"): return events == before.events
            case ("running", "running"): return bytesReceived > before.bytesReceived && events == before.events
            case ("running", "completed"): return events.count > before.events.count && events.starts(with: before.events) && events.last == "completed"
            default: return false
            }
        }
    }

    private func loop() -> CrashLoop<TransferState> {
        let worker = SteppedProgram(executable: SampleApps.products.appendingPathComponent("appex-transfers"), arguments: [],
                                    environment: test.environment.merging(["APPEX_TRANSFERS_IDLE_MS": "0"]) { $1 })
        return CrashLoop(
            program: worker,
            reset: {
                try FileManager.default.removeItem(at: self.test.home.dataDirectory)
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
                let destination = try #require(self.task.destination)
                let bytes = try Data(contentsOf: destination)
                var problems: [String] = []
                if bytes.count != Self.size || !GeneratedBytes.matches(bytes) { problems.append("the delivered file is not what the server sent (\(bytes.count) bytes)") }
                if FileManager.default.fileExists(atPath: destination.path + ".partial") { problems.append("the .partial file was left") }
                return problems
            }
        )
    }

    /// The task's row and the delivered file, read without changing anything.
    private func read() throws -> TransferState {
        let id = task.id.uuidString
        let (row, events) = try QuietReader.read(test.home.registryURL) { db in
            (try Row.fetchOne(db, sql: "SELECT state, bytesReceived FROM transferTask WHERE id = ?", arguments: [id]),
             try String.fetchAll(db, sql: "SELECT kind FROM transferEvent WHERE taskID = ? ORDER BY sequence", arguments: [id]))
        }
        let found = try #require(row, "the task is in the registry")
        let destination = try #require(task.destination)
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? nil
        return TransferState(state: found["state"], bytesReceived: found["bytesReceived"], events: events, delivered: size)
    }
}
