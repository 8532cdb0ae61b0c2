import AppexRegistry
import AppexTesting
import Foundation
import Testing

/// Resume data in the store: an ended download's kept bytes wait for one new download of
/// the same app and group, until they expire, and the task that kept them stays until then.
@Suite final class TransferResumingTests {
    let test: TestHome
    let registry: Registry
    static let app = "com.example.notes"
    static let session = "com.example.notes.uploads"
    static let group = "group.com.example.notes"

    init() async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
        try await AssembledSamples.install(into: registry, only: ["Notes.app"])
    }

    func download(app: String = TransferResumingTests.app, group: String = TransferResumingTests.group, path: String = "/file") -> TransferTask {
        TransferTask(appIdentifier: app, sessionIdentifier: Self.session, groupIdentifier: group, owner: "com.example.notes.share",
                     kind: .download, request: .init(url: URL(string: "http://127.0.0.1:8080\(path)")!, headers: [.init("X-Note", "kept")]),
                     destination: test.scratch.appendingPathComponent(UUID().uuidString))
    }

    /// A download cancelled after its first answer, its bytes kept until `until`.
    func keptDownload(until: Date = Date().addingTimeInterval(TransferTask.resumeDataLifetime)) throws -> TransferTask {
        let task = try registry.addTransfer(download())
        var started = try #require(try registry.startTransfer(task.id))
        started.bytesReceived = 1000
        started.validator = "\"v1\""
        try registry.recordTransferProgress(task.id, of: started)
        #expect(try registry.finishTransfer(task.id, .cancelled, failure: .cancelled, resumableUntil: until))
        return try #require(try registry.transfer(task.id))
    }

    @Test func aResumedDownloadTakesTheKeptOnesRequestAndValidatorOnce() throws {
        let kept = try keptDownload()
        #expect(kept.resumableUntil != nil && kept.mayResume)
        var fresh = download(path: "/ignored")
        fresh.request.timeout = 5
        let (resumed, from) = try registry.addResumedTransfer(fresh, from: kept.id)
        #expect(from.id == kept.id)
        #expect(resumed.request.url.path == "/file" && resumed.request.headers == kept.request.headers, "the kept download's request")
        #expect(resumed.request.timeout == 5, "with the new session's timeout")
        #expect(resumed.validator == "\"v1\"" && resumed.resumesFrom == kept.id && resumed.resumedAtOffset == nil)
        #expect(try registry.transfer(kept.id)?.resumableUntil == nil, "the bytes are taken")

        let again = #expect(throws: RegistryError.self) { try self.registry.addResumedTransfer(self.download(), from: kept.id) }
        #expect(again?.message == "the resume data names no download of \(Self.app) whose bytes wait to be resumed")
    }

    @Test func anotherAppsOrAnotherGroupsOrAnExpiredDownloadIsNotTaken() throws {
        let kept = try keptDownload()
        let stolen = #expect(throws: RegistryError.self) {
            try self.registry.addResumedTransfer(self.download(app: "com.example.intruder"), from: kept.id)
        }
        #expect(stolen?.message == "the resume data names no download of com.example.intruder whose bytes wait to be resumed",
                "refused in the words a missing download is, telling nothing of another app's")
        let unknown = #expect(throws: RegistryError.self) {
            try self.registry.addResumedTransfer(self.download(app: "com.example.intruder"), from: UUID())
        }
        #expect(unknown?.message == stolen?.message)
        let elsewhere = #expect(throws: RegistryError.self) {
            try self.registry.addResumedTransfer(self.download(group: "group.com.example.other"), from: kept.id)
        }
        #expect(elsewhere?.message == "the resume data's download landed in app group \(Self.group), not group.com.example.other")
        #expect(try registry.transfer(kept.id)?.resumableUntil != nil, "refusals take nothing")

        let expired = try keptDownload(until: Date().addingTimeInterval(-1))
        #expect(throws: RegistryError.self) { try self.registry.addResumedTransfer(self.download(), from: expired.id) }
    }

    /// Apple's conditions: "The task is an HTTP or HTTPS GET request; the server provides
    /// either the ETag or Last-Modified header."
    @Test func onlyAGETDownloadWithAValidatorMayResume() {
        var task = download()
        #expect(!task.mayResume, "no validator yet")
        task.validator = "Tue, 01 Dec 2026 10:00:00 GMT"
        #expect(task.mayResume)
        task.request.method = "POST"
        #expect(!task.mayResume)
        task.request.method = "get"
        task.kind = .upload
        #expect(!task.mayResume)
    }

    @Test func keptBytesExpireAndTheirTaskGoesOnceItsEventsAreAcknowledged() throws {
        let kept = try keptDownload(until: Date().addingTimeInterval(60))
        let later = try registry.addTransfer(download(path: "/later"))
        let events = try registry.transferEvents(appIdentifier: Self.app, session: Self.session)
        try registry.acknowledgeTransferEvents(appIdentifier: Self.app, session: Self.session, through: try #require(events.last?.sequence))
        #expect(try registry.transfer(kept.id) != nil, "kept while its bytes wait, though its events are acknowledged")

        #expect(try registry.expireResumeData(at: Date()).isEmpty, "not yet")
        let expired = try registry.expireResumeData(at: Date().addingTimeInterval(61))
        #expect(expired.map(\.id) == [kept.id], "returned, for its file to go")
        #expect(try registry.transfer(kept.id) == nil, "and forgotten, its events acknowledged and a later task numbering the next")
        #expect(try registry.transfer(later.id) != nil)
    }
}
