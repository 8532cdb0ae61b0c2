import AppexRegistry
import AppexTesting
import Foundation
import Testing

/// The background transfers' store: tasks numbered per session, each state change once, a
/// task's end and its events together, events kept until acknowledged.
@Suite final class TransferStoreTests {
    let test: TestHome
    let registry: Registry
    static let app = "com.example.notes"
    static let session = "com.example.notes.uploads"

    init() async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
        try await AssembledSamples.install(into: registry, only: ["Notes.app"])
    }

    func download(_ session: String = TransferStoreTests.session, path: String = "/file") -> TransferTask {
        TransferTask(appIdentifier: Self.app, sessionIdentifier: session, groupIdentifier: "group.com.example.notes", owner: "com.example.notes.share",
                     kind: .download, request: .init(url: URL(string: "http://127.0.0.1:8080\(path)")!),
                     destination: test.scratch.appendingPathComponent("file"))
    }

    @Test func tasksAreNumberedWithinTheirSessionAndReadBackWhole() throws {
        let first = try registry.addTransfer(download())
        let second = try registry.addTransfer(download(path: "/other"))
        let elsewhere = try registry.addTransfer(download("com.example.notes.other"))
        let numbers: [Int] = [first.taskIdentifier, second.taskIdentifier, elsewhere.taskIdentifier]
        #expect(numbers == [1, 2, 1])
        #expect(try registry.transfer(first.id) == first, "every field round-trips")
        #expect(try registry.transfers(appIdentifier: Self.app, session: Self.session).map(\.id) == [first.id, second.id])
        #expect(first.partialFile?.lastPathComponent == "file.partial")

        var orphan = download()
        orphan.appIdentifier = "com.example.nothing"
        let refused = #expect(throws: RegistryError.self) { try self.registry.addTransfer(orphan) }
        #expect(refused?.code == .notInstalled && refused?.message.contains("no app com.example.nothing is installed") == true)
    }

    @Test func anAttemptStartsOnceAndATaskEndsOnceWithItsEvents() throws {
        let task = try registry.addTransfer(download())
        let started = try #require(try registry.startTransfer(task.id))
        #expect(started.state == .running && started.attempts == 1)
        #expect(try registry.startTransfer(task.id) == nil, "a running task isn't started again")

        #expect(try registry.retryTransfer(task.id, at: Date().addingTimeInterval(60), after: TransferFailure(.badServerResponse, "the server answered 503")))
        #expect(try registry.transfer(task.id)?.errorCode == .badServerResponse, "the failure is kept with its code")
        let (ready, next) = try registry.runnableTransfers(at: Date())
        #expect(ready.isEmpty && next != nil, "it waits for its retry time")
        #expect(try registry.runnableTransfers(at: Date().addingTimeInterval(61)).ready.map(\.id) == [task.id])
        #expect(try registry.startTransfer(task.id)?.attempts == 2)

        var progress = started
        progress.bytesReceived = 1000
        progress.bytesExpectedToReceive = 4000
        progress.validator = "\"v1\""
        try registry.recordTransferProgress(task.id, of: progress)
        let file = test.scratch.appendingPathComponent("file")
        #expect(try registry.finishTransfer(task.id, .completed, statusCode: 200, downloadedTo: file))
        #expect(!(try registry.finishTransfer(task.id, .failed, failure: TransferFailure(.timedOut, "late"))), "a task ends once")
        let ended = try #require(try registry.transfer(task.id))
        #expect(ended.state == .completed && ended.statusCode == 200 && ended.bytesReceived == 1000 && ended.validator == "\"v1\"")
        #expect(ended.error == nil && ended.errorCode == nil, "a completed task has no error, and a late failure adds none")
        #expect(try registry.retryTransfer(task.id, at: Date(), after: TransferFailure(.timedOut, "late")) == false)

        let events = try registry.transferEvents(appIdentifier: Self.app, session: Self.session)
        #expect(events.map(\.kind) == [.finishedDownloading, .completed])
        #expect(events.first?.location == file && events.allSatisfy { $0.taskID == task.id })
    }

    @Test func eventsStayUntilAcknowledgedAndGoWithTheApp() throws {
        let first = try registry.addTransfer(download())
        let second = try registry.addTransfer(download())
        try registry.finishTransfer(first.id, .cancelled, failure: .cancelled)
        try registry.finishTransfer(second.id, .failed, failure: TransferFailure(.cannotConnectToHost, "gave up after 5 attempts"))
        let events = try registry.transferEvents(appIdentifier: Self.app, session: Self.session)
        #expect(events.count == 2)
        let elsewhere = try registry.addTransfer(download("com.example.notes.other"))
        try registry.finishTransfer(elsewhere.id, .completed, statusCode: 200)
        let pending = try registry.sessionsWithTransferEvents()
        #expect(pending.map { "\($0.appIdentifier) \($0.session) \($0.newest)" }
                == ["\(Self.app) \(Self.session) \(events[1].sequence)", "\(Self.app) com.example.notes.other \(events[1].sequence + 1)"])
        try registry.acknowledgeTransferEvents(appIdentifier: Self.app, session: Self.session, through: events[0].sequence)
        #expect(try registry.transferEvents(appIdentifier: Self.app, session: Self.session).map(\.taskID) == [second.id])
        try registry.acknowledgeTransferEvents(appIdentifier: Self.app, session: "com.example.notes.other", through: events[1].sequence + 1)
        #expect(try registry.sessionsWithTransferEvents().map(\.session) == [Self.session], "a session whose events are all acknowledged has none")
        #expect(try registry.transferEvents(appIdentifier: Self.app, session: "com.example.notes.other").isEmpty)

        _ = try registry.uninstall(Self.app)
        #expect(try registry.transfers().isEmpty, "a session's tasks go with its app")
    }

    @Test func anEndedTaskGoesOnceItsEventsAreAcknowledgedButTheSessionsLastWhichNumbersTheNext() throws {
        let tasks = try (0..<4).map { _ in try registry.addTransfer(download()) }
        let elsewhere = try registry.addTransfer(download("com.example.notes.other"))
        try registry.finishTransfer(tasks[0].id, .completed, statusCode: 200)
        try registry.finishTransfer(tasks[1].id, .failed, failure: TransferFailure(.cannotConnectToHost, "gave up after 5 attempts"))
        try registry.finishTransfer(tasks[3].id, .cancelled, failure: .cancelled)
        try registry.finishTransfer(elsewhere.id, .completed, statusCode: 200)
        let events = try registry.transferEvents(appIdentifier: Self.app, session: Self.session)
        func left() throws -> [UUID] { try registry.transfers(appIdentifier: Self.app, session: Self.session).map(\.id) }

        try registry.acknowledgeTransferEvents(appIdentifier: Self.app, session: Self.session, through: events[0].sequence)
        #expect(try left() == [tasks[1].id, tasks[2].id, tasks[3].id], "the first task's events are delivered, and it goes")
        try registry.acknowledgeTransferEvents(appIdentifier: Self.app, session: Self.session, through: try #require(events.last).sequence)
        #expect(try left() == [tasks[2].id, tasks[3].id], "the waiting task stays, and the ended last one, which numbers the next")
        #expect(try registry.addTransfer(download()).taskIdentifier == 5, "a number is never used twice in a session")
        #expect(try registry.transfers(appIdentifier: Self.app, session: "com.example.notes.other").map(\.id) == [elsewhere.id],
                "another session's tasks wait for its own acknowledgement")
    }

    /// appexd tells an attached process of each event with its task; a task that ended between
    /// reading the tasks and reading the events came with a `completed` event and its state
    /// still `waiting`, and the app heard of a task that completed without an answer.
    @Test func aSessionIsReadAtOneMomentWhileItsTasksEndInAnotherProcess() async throws {
        let registry = registry
        let firstRead = AsyncStream.makeStream(of: Void.self)
        let reading = Task.detached { [continuation = firstRead.continuation] in
            try TransferStoreTests.readUntilEnded(200, in: registry, reporting: continuation)
        }
        defer { reading.cancel() }
        for await _ in firstRead.stream { break }
        // Another Registry on the same database, as appex-transfers has.
        let transfers = try Registry(home: test.home)
        for _ in 0..<200 {
            let task = try transfers.addTransfer(download())
            try transfers.finishTransfer(task.id, .failed, failure: TransferFailure(.cannotConnectToHost, "gave up after 5 attempts"))
        }
        let (reads, mismatches) = try await reading.value
        #expect(mismatches.isEmpty, "in \(reads) reads")
        #expect(reads > 1, "the session was read while its tasks ended")
    }

    /// Reads the session over and over until `count` of its tasks have ended; returns how
    /// many reads it took, and each `completed` event that came without its task ended.
    private static func readUntilEnded(_ count: Int, in registry: Registry,
                                       reporting read: AsyncStream<Void>.Continuation) throws -> (reads: Int, mismatches: [String]) {
        var reads = 0
        var mismatches: [String] = []
        var ended = 0
        while ended < count, mismatches.isEmpty, !Task.isCancelled {
            let session = try registry.transferSession(appIdentifier: app, session: session)
            let byID = Dictionary(uniqueKeysWithValues: session.tasks.map { ($0.id, $0) })
            for event in session.events where event.kind == .completed && byID[event.taskID]?.state != .failed {
                mismatches.append("event \(event.sequence) came with its task \(byID[event.taskID].map { "\($0.state)" } ?? "missing")")
            }
            ended = session.events.count
            reads += 1
            read.yield()
        }
        return (reads, mismatches)
    }

    @Test func tasksRunningWhenAppexdStoppedWaitAgain() throws {
        let running = try registry.addTransfer(download())
        let waiting = try registry.addTransfer(download())
        _ = try registry.startTransfer(running.id)
        #expect(try registry.requeueInterruptedTransfers() == 1)
        let again = try #require(try registry.transfer(running.id))
        #expect(again.state == .waiting && again.attempts == 1 && again.error == "the transfers' process stopped during the attempt")
        #expect(again.errorCode == .networkConnectionLost)
        #expect(try registry.runnableTransfers(at: Date()).ready.map(\.id) == [running.id, waiting.id])
    }
}
