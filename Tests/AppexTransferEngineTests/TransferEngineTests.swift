import AppexCore
import AppexRegistry
import AppexTestServer
import AppexTesting
import AppexTransferEngine
import Crypto
import Foundation
import Testing

/// The engine against a real HTTP server on loopback: downloads and uploads streamed,
/// resumed, retried, given up on, cancelled and stopped, each ending once in the registry.
@Suite final class TransferEngineTests: TransferFixture {
    // MARK: Downloads

    @Test func aDownloadLandsWholeAtItsDestinationWithItsEvents() async throws {
        let task = try registry.addTransfer(download("/bytes/1000000"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 200 && ended.attempts == 1)
        #expect(ended.bytesReceived == 1_000_000 && ended.bytesExpectedToReceive == 1_000_000)
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 1_000_000 && GeneratedBytes.matches(file))
        let partial = try #require(ended.partialFile)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        let events = try registry.transferEvents(appIdentifier: task.appIdentifier, session: task.sessionIdentifier)
        #expect(events.map(\.kind) == [.finishedDownloading, .completed])
        #expect(events.first?.location == ended.destination)
    }

    @Test func aDroppedDownloadResumesWhereItStopped() async throws {
        server.script("/bytes/1000000", [.drop(after: 400_000)])
        let task = try registry.addTransfer(download("/bytes/1000000"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 206 && ended.attempts == 2)
        let requests = server.seen("/bytes/1000000")
        try #require(requests.count == 2)
        let range = try #require(requests[1].headers["range"])
        let resumedAt = try #require(Int(range.dropFirst("bytes=".count).dropLast()))
        #expect(resumedAt > 0 && resumedAt <= 400_000, "it asked for the rest, not the whole: \(range)")
        #expect(requests[1].headers["if-range"] == "\"bytes-1000000\"")
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 1_000_000 && GeneratedBytes.matches(file), "the kept bytes and the rest make the file")
    }

    @Test func aServerThatWontResumeSendsTheWholeFileAgain() async throws {
        server.script("/bytes/300000", [.drop(after: 100_000), .ignoreRange])
        let task = try registry.addTransfer(download("/bytes/300000"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 200 && ended.attempts == 2)
        #expect(server.seen("/bytes/300000")[1].headers["range"] != nil)
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 300_000 && GeneratedBytes.matches(file), "the kept bytes were dropped, not prepended")
    }

    @Test func anHTTPErrorIsAnAnswerNotAFailure() async throws {
        server.script("/bytes/10", [.answer(404)])
        let task = try registry.addTransfer(download("/bytes/10"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 404 && ended.attempts == 1 && ended.error == nil)
        let events = try registry.transferEvents(appIdentifier: task.appIdentifier, session: task.sessionIdentifier)
        #expect(events.map(\.kind) == [.finishedDownloading, .completed], "a 404's body is downloaded too, as URLSession does")
    }

    // MARK: Links in the group container

    /// A file of the user's outside the group container, which an extension would like
    /// appex-transfers, which is not sandboxed, to overwrite.
    func usersFile() throws -> URL {
        let outside = test.scratch.appendingPathComponent("user-home")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let file = outside.appendingPathComponent(".bashrc")
        try Data("the user's own\n".utf8).write(to: file)
        return file
    }

    @Test func aLinkPlantedAtTheDownloadsFileIsNotFollowed() async throws {
        let target = try usersFile()
        let task = try registry.addTransfer(download("/bytes/1000"))
        // The extension knows the task's identifier, so where its .partial file will be.
        let partial = try #require(task.partialFile)
        try FileManager.default.createDirectory(at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: target)
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .failed && ended.errorCode == .cannotCreateFile && ended.attempts == 1, "\(ended)")
        #expect(ended.error?.contains("ELOOP") == true, "\(ended.error ?? "")")
        #expect(try String(contentsOf: target, encoding: .utf8) == "the user's own\n")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: partial.path)) == nil, "the failed task removed the link, not its target")
    }

    @Test func aLinkPlantedAtAFolderOnTheWayIsNotFollowed() async throws {
        let target = try usersFile()
        let task = try registry.addTransfer(download("/bytes/1000"))
        let folder = try #require(task.destination).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: target.deletingLastPathComponent())
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .failed && ended.errorCode == .cannotCreateFile && ended.attempts == 1, "\(ended)")
        #expect(ended.error?.contains("can't be opened without leaving \(test.home.groupsDirectory.path)") == true, "\(ended.error ?? "")")
        let left = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
        #expect(left == [".bashrc"], "nothing was written beside the user's file: \(left)")
        #expect(server.seen("/bytes/1000").isEmpty, "it stopped before asking the server")
    }

    // MARK: Uploads

    @Test func anUploadStreamsItsFileWithItsIdempotencyKey() async throws {
        let file = try makeFile(bytes: 3_000_000)
        let task = try registry.addTransfer(upload(file, to: "/upload/video"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 201)
        #expect(ended.bytesSent == 3_000_000 && ended.bytesExpectedToSend == 3_000_000)
        let uploads = server.uploads(at: "/upload/video")
        let hash = try sha256(of: file)
        #expect(uploads == [.init(bytes: 3_000_000, sha256: hash, idempotencyKey: task.id.uuidString)],
                "the server holds every byte")
        #expect(server.seen("/upload/video").first?.headers["content-length"] == "3000000")
    }

    @Test func aDroppedUploadStartsOverWithTheSameKey() async throws {
        let file = try makeFile(bytes: 2_000_000)
        server.script("/upload/video", [.drop(after: 500_000)])
        let task = try registry.addTransfer(upload(file, to: "/upload/video"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 201 && ended.attempts == 2)
        let uploads = server.uploads(at: "/upload/video")
        #expect(uploads.count == 2 && uploads.allSatisfy { $0.idempotencyKey == task.id.uuidString })
        let hash = try sha256(of: file)
        #expect(uploads.last?.bytes == 2_000_000 && uploads.last?.sha256 == hash)
    }

    @Test func anUploadWhoseFileIsGoneFailsAtOnce() async throws {
        let task = try registry.addTransfer(upload(test.scratch.appendingPathComponent("gone.mov"), to: "/upload/video"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .failed && ended.attempts == 1)
        #expect(ended.error?.contains("the upload's file \(test.scratch.path)/gone.mov can't be read") == true, "\(ended.error ?? "")")
        #expect(ended.errorCode == .fileDoesNotExist)
        #expect(server.seen.isEmpty)
    }

    // MARK: Retries and their end

    @Test func busyAnswersAreRetriedUntilOneSucceeds() async throws {
        server.script("/bytes/1000", [.answer(500), .answer(503, headers: ["Retry-After": "0"])])
        let task = try registry.addTransfer(download("/bytes/1000"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 200 && ended.attempts == 3)
        #expect(server.seen("/bytes/1000").map(\.behaviour) == [.answer(500), .answer(503, headers: ["Retry-After": "0"]), .serve])
    }

    @Test func aTaskGivesUpAfterItsAttemptsWithTheLastReason() async throws {
        server.script("/bytes/1000", Array(repeating: .answer(503), count: 6))
        let task = try registry.addTransfer(download("/bytes/1000"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .failed && ended.attempts == 5)
        #expect(ended.error == "gave up after 5 attempts: the server answered 503 Service Unavailable")
        #expect(ended.errorCode == .badServerResponse)
        #expect(server.seen("/bytes/1000").count == 5)
        let events = try registry.transferEvents(appIdentifier: task.appIdentifier, session: task.sessionIdentifier)
        #expect(events.map(\.kind) == [.completed], "a failed download has no file")
    }

    @Test func anUnreachableServerIsRetriedThenGivenUpOn() async throws {
        let gone = try RefusingPort()
        defer { gone.close() }
        let task = try registry.addTransfer(SampleTransfers.download(gone.url("/bytes/1000"), into: test.home.groupsDirectory))
        let ended = try await runUntilEnded(task, policy: TransferPolicy(maximumAttempts: 2, firstRetryDelay: .milliseconds(50)))
        #expect(ended.state == .failed && ended.attempts == 2)
        #expect(ended.error == "gave up after 2 attempts: 127.0.0.1:\(gone.port) refused the connection")
        #expect(ended.errorCode == .cannotConnectToHost, "the last attempt's code is the task's")
    }

    @Test func aHostWithNoAddressFailsWithCannotFindHost() async throws {
        // .invalid never resolves (RFC 6761), so this needs no network.
        let task = try registry.addTransfer(SampleTransfers.download(URL(string: "http://appex-test.invalid/file")!, into: test.home.groupsDirectory))
        let ended = try await runUntilEnded(task, policy: TransferPolicy(maximumAttempts: 2, firstRetryDelay: .milliseconds(50)))
        #expect(ended.state == .failed && ended.attempts == 2 && ended.errorCode == .cannotFindHost, "\(ended)")
        #expect(ended.error == "gave up after 2 attempts: appex-test.invalid's address could not be found")
    }

    @Test func aStalledTransferTimesOutAndIsRetried() async throws {
        server.script("/bytes/200000", [.stall(after: 100_000)])
        let task = try registry.addTransfer(download("/bytes/200000", timeout: 0.5))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.attempts == 2)
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 200_000 && GeneratedBytes.matches(file))
    }

    @Test func aTaskPastItsResourceTimeoutFails() async throws {
        server.script("/bytes/200000", [.stall(after: 1000)])
        let task = try registry.addTransfer(download("/bytes/200000", resourceTimeout: 1))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .failed && ended.attempts == 1)
        #expect(ended.error == "its resource timeout (1 s) passed before it could finish" && ended.errorCode == .timedOut)
        // A GET whose server gave an ETag may resume, as URLSession's failed downloads do.
        let partial = try #require(ended.partialFile)
        #expect(ended.resumableUntil != nil && FileManager.default.fileExists(atPath: partial.path), "the kept bytes wait for its resume data")
    }

    /// A server decides how long its header fields and answer body are: the registry keeps
    /// 16 KiB of the one and the spool 64 KiB of the other, whatever it sends.
    @Test func anAnswersHeaderFieldsAndAnUploadsAnswerBodyAreKeptWithinTheirBounds() async throws {
        let long = String(repeating: "h", count: 20 * 1024)
        server.script("/bytes/10", [.answer(200, headers: ["ETag": "\"e\"", "X-Long": long])])
        let download = try await runUntilEnded(try registry.addTransfer(download("/bytes/10")))
        let headers = try #require(download.responseHeaders, "\(download)")
        #expect(headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } <= TransferTask.keptResponseHeaderBytes)
        #expect(!headers.contains { $0.name == "X-Long" }, "\(headers)")
        #expect(headers.contains { $0.name.lowercased() == "etag" }, "kept whichever order the server sent them in: \(headers)")

        let file = try makeFile(bytes: 1000)
        var upload = upload(file, to: "/upload/long")
        upload.request.headers.append(.init("X-Answer-Bytes", "300000"))
        let uploaded = try await runUntilEnded(try registry.addTransfer(upload))
        #expect(uploaded.statusCode == 201 && uploaded.responseHeaders?.contains { $0.name.lowercased() == "location" && $0.value == "/upload/long/1" } == true)
        let events = try registry.transferEvents(appIdentifier: uploaded.appIdentifier, session: uploaded.sessionIdentifier).filter { $0.taskID == uploaded.id }
        #expect(events.map(\.kind) == [.receivedData, .completed])
        let answer = try Data(contentsOf: try #require(events.first?.location))
        #expect(answer.count == Int(TransferTask.keptAnswerBytes) && GeneratedBytes.matches(answer), "the answer's first 64 KiB")
    }

    @Test func anAbsurdRetryAfterWaitsNoLongerThanTheResourceDeadline() async throws {
        server.script("/bytes/1000", [.answer(503, headers: ["Retry-After": "9000000000000000000"])])
        let task = try registry.addTransfer(download("/bytes/1000", resourceTimeout: 1))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .failed && ended.attempts == 1)
        #expect(ended.error == "its resource timeout (1 s) passed before it could finish" && ended.errorCode == .timedOut)
    }

    // MARK: Cancelling and stopping

    @Test func cancellingARunningTaskEndsItOnceAndTheEngineGoesOn() async throws {
        server.script("/bytes/200000", [.stall(after: 50_000)])
        let stalled = try registry.addTransfer(download("/bytes/200000"))
        let engine = TransferEngine(registry: registry, downloadsFolder: test.home.groupsDirectory, policy: TransferFixture.policy)
        let running = Task { await engine.run() }
        defer { running.cancel() }
        #expect(await eventually { ((try? self.registry.transfer(stalled.id))?.bytesReceived ?? 0) > 0 })
        #expect(try await engine.cancel(stalled.id))
        #expect(try await !engine.cancel(stalled.id), "a task ends once")

        let next = try registry.addTransfer(download("/bytes/1000"))
        engine.wake()
        #expect(await eventually { (try? self.registry.transfer(next.id))?.state == .completed })
        let cancelled = try #require(try registry.transfer(stalled.id))
        #expect(cancelled.state == .cancelled && cancelled.error == "cancelled" && cancelled.errorCode == .cancelled)
        let partial = try #require(cancelled.partialFile)
        #expect(await eventually { !FileManager.default.fileExists(atPath: partial.path) }, "the kept bytes go")
        let events = try registry.transferEvents(appIdentifier: stalled.appIdentifier, session: stalled.sessionIdentifier)
        #expect(events.filter { $0.taskID == stalled.id }.map(\.kind) == [.completed])
    }

    @Test func aStoppedEngineLeavesItsTaskToResumeInTheNext() async throws {
        server.script("/bytes/500000", [.stall(after: 200_000)])
        let task = try registry.addTransfer(download("/bytes/500000"))
        let first = TransferEngine(registry: registry, downloadsFolder: test.home.groupsDirectory, policy: TransferFixture.policy)
        let running = Task { await first.run() }
        #expect(await eventually { ((try? self.registry.transfer(task.id))?.bytesReceived ?? 0) >= 100_000 })
        running.cancel()
        await running.value
        let stopped = try #require(try registry.transfer(task.id))
        #expect(stopped.state == .waiting && stopped.error == "the transfers' process stopped during the attempt")
        let partial = try #require(stopped.partialFile)
        #expect(FileManager.default.fileExists(atPath: partial.path), "what arrived is kept")

        let ended = try await runUntilEnded(task)
        #expect(ended.state == .completed && ended.statusCode == 206 && ended.attempts == 2)
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 500_000 && GeneratedBytes.matches(file))
    }
}
