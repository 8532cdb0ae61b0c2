import AppexLocking
import AppexRegistry
import AppexSamples
import AppexTesting
import Foundation
import Glibc
import Testing

/// `appex transfers`: the registry's background tasks, with their owner, state, bytes and a
/// progress bar, as a table, as JSON, and followed live.
@Suite final class TransfersCommandTests {
    let test: TestHome
    let appex: CommandRunner
    let registry: Registry
    static let session = "com.example.notes.uploads"

    init() async throws {
        test = try TestHome()
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
        registry = try Registry(home: test.home)
        try await AssembledSamples.install(into: registry, only: ["Notes.app"])
    }

    /// An upload 1 MB of 4 MB in, and a download that has not started.
    func addTasks() throws -> (upload: TransferTask, download: TransferTask) {
        var upload = try registry.addTransfer(TransferTask(
            appIdentifier: "com.example.notes", sessionIdentifier: Self.session, groupIdentifier: "group.com.example.notes",
            owner: "com.example.notes.share", kind: .upload, request: .init(url: URL(string: "https://example.com/videos")!, method: "PUT"),
            bodyFile: test.scratch.appendingPathComponent("video.mov")))
        let started = try #require(try registry.startTransfer(upload.id))
        upload = started
        upload.bytesSent = 1_000_000
        upload.bytesExpectedToSend = 4_000_000
        try registry.recordTransferProgress(upload.id, of: upload)
        let download = try registry.addTransfer(TransferTask(
            appIdentifier: "com.example.notes", sessionIdentifier: "com.example.notes.downloads", groupIdentifier: "group.com.example.notes",
            owner: "com.example.notes", kind: .download, request: .init(url: URL(string: "https://example.com/notes.zip")!),
            destination: test.scratch.appendingPathComponent("notes.zip")))
        return (upload, download)
    }

    @Test func theTasksAreListedWithTheirProgress() async throws {
        let empty = try await appex.run(["transfers"])
        #expect(empty.status == 0 && empty.standardOutput == "No background transfers.\n")

        _ = try addTasks()
        let listed = try await appex.run(["transfers"])
        #expect(listed.status == 0, "\(listed.standardError)")
        let lines = listed.standardOutput.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines == [
            "SESSION TASK KIND OWNER STATE BYTES PROGRESS",
            "com.example.notes.uploads 1 upload com.example.notes.share running 1.0 MB of 4.0 MB [█████░░░░░░░░░░░░░░░] 25%",
            "com.example.notes.downloads 1 download com.example.notes waiting 0 B",
        ], "\(listed.standardOutput)")

        let one = try await appex.run(["transfers", "--session", "com.example.notes.downloads", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(one.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["kind"] as? String == "download" && rows.first?["expectedBytes"] as? Int == -1 && rows.first?["state"] as? String == "waiting")
    }

    @Test func watchFollowsTheTasksLive() async throws {
        var (upload, _) = try addTasks()
        let process = Process()
        process.executableURL = appex.executable
        process.arguments = ["transfers", "--watch"]
        process.environment = appex.environment
        let output = Pipe()
        process.standardOutput = output
        let printed = Locked("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        func shown(_ text: String) async -> Bool {
            for _ in 0..<600 where !printed.withLock({ $0.contains(text) }) { try? await Task.sleep(for: .milliseconds(50)) }
            return printed.withLock { $0.contains(text) }
        }
        #expect(await shown("1.0 MB of 4.0 MB"))
        upload.bytesSent = 3_000_000
        try registry.recordTransferProgress(upload.id, of: upload)
        #expect(await shown("[███████████████░░░░░]  75%"), "\(printed.withLock { $0 })")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        #expect(process.terminationStatus == 0, "SIGINT ends the watch")
        #expect(printed.withLock { $0.components(separatedBy: "SESSION").count } == 3, "printed again only when it changed")
    }
}
