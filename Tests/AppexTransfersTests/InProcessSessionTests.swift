import AppexLocking
import AppexTestServer
@testable import AppexTransfers
import Foundation
import Testing

/// Sessions whose tasks run in this process, against a real HTTP server on loopback, through
/// AppexNetworking, which this test bundle links: `URLSession.shared`, `.default` and
/// `.ephemeral` configurations, completion handlers, `async`, and the delegates.
@Suite final class InProcessSessionTests {
    let server: LoopbackHTTPServer

    init() async throws {
        server = try await LoopbackHTTPServer.start()
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    @Test func theSharedSessionGivesADataTasksAnswerToItsCompletionHandler() async throws {
        let answer = Locked<(Data?, URLResponse?, (any Error)?)?>(nil)
        let done = AsyncStream.makeStream(of: Void.self)
        let task = URLSession.shared.dataTask(with: server.url("/bytes/100000")) { data, response, error in
            answer.withLock { $0 = (data, response, error) }
            done.continuation.finish()
        }
        #expect(task.state == .suspended)
        task.resume()
        for await _ in done.stream {}
        let (data, response, error) = try #require(answer.withLock { $0 })
        #expect(error == nil)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200 && http.value(forHTTPHeaderField: "etag") == "\"bytes-100000\"")
        #expect(data?.count == 100_000 && GeneratedBytes.matches(data ?? Data()))
        #expect(task.state == .completed && task.taskIdentifier > 0 && task.countOfBytesReceived == 100_000)
        #expect(task.countOfBytesExpectedToReceive == 100_000, "from the answer's Content-Length")
        #expect(task.progress.completedUnitCount == 100_000 && task.progress.totalUnitCount == 100_000)
    }

    @Test func asyncDataUploadAndDownloadWork() async throws {
        let session = URLSession(configuration: .ephemeral)
        let (data, response) = try await session.data(from: server.url("/bytes/5000"))
        #expect(GeneratedBytes.matches(data) && data.count == 5000 && (response as? HTTPURLResponse)?.statusCode == 200)

        var request = URLRequest(url: server.url("/upload/async"))
        request.httpMethod = "POST"
        let body = GeneratedBytes.data(count: 70_000)
        let (answer, uploaded) = try await session.upload(for: request, from: body)
        #expect((uploaded as? HTTPURLResponse)?.statusCode == 201)
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("{\"bytes\": 70000, "))
        #expect(server.uploads(at: "/upload/async").last?.carries(body) == true)

        let (file, downloaded) = try await session.download(from: server.url("/bytes/200000"))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect((downloaded as? HTTPURLResponse)?.statusCode == 200)
        let bytes = try Data(contentsOf: file)
        #expect(bytes.count == 200_000 && GeneratedBytes.matches(bytes), "the file is the caller's, after the call")
        session.finishTasksAndInvalidate()
    }

    @Test func aDelegateHearsADataTaskAndAnUploadAsTheyGo() async throws {
        let delegate = InProcessRecordingDelegate()
        let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
        session.dataTask(with: server.url("/bytes/300000")).resume()
        var request = URLRequest(url: server.url("/upload/delegate"))
        request.httpMethod = "PUT"
        session.uploadTask(with: request, from: GeneratedBytes.data(count: 50_000)).resume()
        #expect(await delegate.completions(2))
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.received[1] == 300_000, "the data task's body, in parts: \(seen)")
        #expect(seen.sent[2] == 50_000, "the upload's body went: \(seen)")
        #expect(seen.completed == [1: "ok", 2: "ok"])
        #expect(String(decoding: seen.bodies[2] ?? Data(), as: UTF8.self).hasPrefix("{\"bytes\": 50000"), "the upload's answer reached didReceive data")
        session.finishTasksAndInvalidate()
        #expect(await delegate.invalidated())
    }

    @Test func aRefusedConnectionAndACancellationEndTheTaskWithApplesErrors() async throws {
        let gone = try RefusingPort()
        defer { gone.close() }
        let refused = await #expect(throws: URLError.self) { _ = try await URLSession.shared.data(from: gone.url("/x")) }
        #expect(refused?.code == .cannotConnectToHost, "\(String(describing: refused))")

        server.script("/bytes/1000000", [.stall(after: 1000)])
        let stalled = server.url("/bytes/1000000")
        let waiting = Task { try await URLSession.shared.data(from: stalled) }
        try await Task.sleep(for: .milliseconds(300))
        waiting.cancel()
        let cancelled = await #expect(throws: URLError.self) { _ = try await waiting.value }
        #expect(cancelled?.code == .cancelled)
        server.release("/bytes/1000000")
    }
}

/// A delegate that records what it hears, by task.
final class InProcessRecordingDelegate: URLSessionDataDelegate, @unchecked Sendable {
    struct Seen {
        var received: [Int: Int] = [:]
        var bodies: [Int: Data] = [:]
        var sent: [Int: Int64] = [:]
        var completed: [Int: String] = [:]
        var invalidated = false
    }

    let seen = Locked(Seen())

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        seen.withLock { seen in
            seen.received[dataTask.taskIdentifier, default: 0] += data.count
            seen.bodies[dataTask.taskIdentifier, default: Data()].append(data)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        seen.withLock { $0.sent[task.taskIdentifier] = totalBytesSent }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        seen.withLock { $0.completed[task.taskIdentifier] = error.map { "\($0)" } ?? "ok" }
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        seen.withLock { $0.invalidated = true }
    }

    func completions(_ count: Int) async -> Bool {
        await within30Seconds { self.seen.withLock { $0.completed.count } >= count } && seen.withLock { $0.completed.count } == count
    }

    func invalidated() async -> Bool {
        await within30Seconds { self.seen.withLock { $0.invalidated } }
    }
}

/// Whether `condition` holds within 30 s, looked at every 50 ms: how these tests wait for a
/// delegate to hear what a real server's answer makes it hear.
func within30Seconds(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<600 where !condition() { try? await Task.sleep(for: .milliseconds(50)) }
    return condition()
}
