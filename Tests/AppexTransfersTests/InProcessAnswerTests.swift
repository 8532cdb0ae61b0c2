import AppexLocking
import AppexTestServer
@testable import AppexTransfers
import Foundation
import Testing

/// What an in-process data task's delegate decides on its answer before the body
/// (`urlSession(_:dataTask:didReceive:completionHandler:)`), and on a redirect, against a
/// real server.
@Suite final class InProcessAnswerTests {
    let server: LoopbackHTTPServer

    init() async throws {
        server = try await LoopbackHTTPServer.start()
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    @Test func theBodyWaitsForTheDelegatesAnswerAndThenComesWhole() async throws {
        // The delegate answers late, once the whole body has come: none of it was lost or
        // passed on before, and the end came after it.
        let delegate = DecidingDelegate(.allow, after: .milliseconds(300))
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: server.url("/bytes/300000")).resume()
        #expect(await delegate.completed())
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.events.first == "answer 200" && seen.events.last == "end ok", "\(seen.events.prefix(3)) … \(seen.events.suffix(2))")
        #expect(seen.events.firstIndex(of: "decided") ?? .max < seen.events.firstIndex { $0.hasPrefix("data") } ?? -1, "\(seen.events.prefix(4))")
        #expect(seen.body.count == 300_000 && GeneratedBytes.matches(seen.body))
    }

    @Test func cancellingOnTheAnswerEndsTheTaskUnread() async throws {
        let delegate = DecidingDelegate(.cancel)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/bytes/3000000"))
        task.resume()
        #expect(await delegate.completed())
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.body.isEmpty, "no body reached the delegate")
        #expect(seen.events.last == "end \(URLError.cancelled.rawValue)", "\(seen.events)")
        #expect(task.state == .completed && (task.error as? URLError)?.code == .cancelled)
    }

    @Test func becomingADownloadGivesTheWholeBodyAsAFile() async throws {
        let delegate = DecidingDelegate(.becomeDownload)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let dataTask = session.dataTask(with: server.url("/bytes/400000"))
        dataTask.resume()
        #expect(await delegate.completed())
        let seen = delegate.seen.withLock { $0 }
        let download = try #require(seen.became)
        #expect(download.taskIdentifier != dataTask.taskIdentifier && download.originalRequest?.url == dataTask.originalRequest?.url)
        #expect(seen.body.isEmpty, "the data task heard no body")
        #expect(seen.file?.count == 400_000 && GeneratedBytes.matches(seen.file ?? Data()), "the file was whole while the delegate had it")
        #expect(seen.written == 400_000, "didWriteData counted it all")
        #expect(seen.events.last == "end ok of \(download.taskIdentifier)", "\(seen.events.suffix(3))")
        #expect(download.state == .completed && download.countOfBytesReceived == 400_000)
        #expect(!FileManager.default.fileExists(atPath: seen.location?.path ?? "/"), "the file went once the delegate returned")
        #expect(session.state.withLock { $0.tasks.isEmpty })
    }

    @Test func aDelegateThatDoesNotAnswerWhileTheBodyOutgrowsWhatIsHeldHasItsTaskEnded() async throws {
        // Apple's session stops reading while the delegate decides; this one holds the body,
        // at most 8 MiB of it.
        let delegate = DecidingDelegate(.allow, after: .seconds(120))
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/bytes/\(10 << 20)"))
        task.resume()
        #expect(await delegate.completed())
        let error = try #require(task.error as? URLError, "\(delegate.seen.withLock { $0.events.prefix(5) })")
        #expect(error.code == .dataLengthExceedsMaximum && error.localizedDescription.contains("more than 8 MiB"), "\(error)")
        #expect(delegate.seen.withLock { $0.body.isEmpty })
    }

    @Test func becomingAStreamEndsTheTaskSayingThereAreNoStreamTasks() async throws {
        let delegate = DecidingDelegate(.becomeStream)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/bytes/1000"))
        task.resume()
        #expect(await delegate.completed())
        let error = try #require(task.error as? URLError, "\(delegate.seen.withLock { $0.events.prefix(5) })")
        #expect(error.code == .unsupportedURL && error.localizedDescription.contains("no stream tasks"))
    }

    @Test func aDelegateWrittenInTheAsyncFormDecides() async throws {
        let delegate = AsyncDecidingDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/bytes/1000"))
        task.resume()
        #expect(await within30Seconds { task.state == .completed })
        #expect((task.error as? URLError)?.code == .cancelled && delegate.asked.withLock { $0 } == 1)
    }

    @Test func aRedirectIsFollowedWhereTheDelegateSays() async throws {
        server.script("/moved", [.answer(302, headers: ["Location": "/bytes/10"]), .answer(302, headers: ["Location": "/bytes/10"])])
        let follows = RedirectedDelegate(follow: true)
        let session = URLSession(configuration: .ephemeral, delegate: follows, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let followed = session.dataTask(with: server.url("/moved"))
        followed.resume()
        #expect(await follows.completed())
        #expect(follows.seen.withLock { $0.redirects } == ["302 → /bytes/10"])
        #expect(follows.seen.withLock { $0.body.count } == 10 && (followed.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(followed.currentRequest?.url?.path == "/bytes/10" && followed.originalRequest?.url?.path == "/moved")

        let stays = RedirectedDelegate(follow: false)
        let other = URLSession(configuration: .ephemeral, delegate: stays, delegateQueue: nil)
        defer { other.invalidateAndCancel() }
        let kept = other.dataTask(with: server.url("/moved"))
        kept.resume()
        #expect(await stays.completed())
        #expect((kept.response as? HTTPURLResponse)?.statusCode == 302, "the redirect is the answer")
        #expect(server.seen("/bytes/10").count == 1, "only the first task went on")
    }
}

/// A data task delegate that answers every answer with one disposition, at once or later,
/// and records what it hears, in order.
final class DecidingDelegate: URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    struct Seen {
        var events: [String] = []
        var body = Data()
        var became: URLSessionDownloadTask?
        var file: Data?
        var location: URL?
        var written: Int64 = 0
        var done = false
    }

    let seen = Locked(Seen())
    let disposition: URLSession.ResponseDisposition
    let delay: Duration

    init(_ disposition: URLSession.ResponseDisposition, after delay: Duration = .zero) {
        self.disposition = disposition
        self.delay = delay
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        seen.withLock { $0.events.append("answer \((response as? HTTPURLResponse)?.statusCode ?? 0)") }
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) { [self] in
            seen.withLock { $0.events.append("decided") }
            completionHandler(disposition)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        seen.withLock { seen in
            seen.events.append("data \(data.count)")
            seen.body.append(data)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask) {
        seen.withLock { $0.became = downloadTask }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        seen.withLock { $0.written = totalBytesWritten }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let file = try? Data(contentsOf: location)
        seen.withLock { seen in
            seen.file = file
            seen.location = location
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        seen.withLock { seen in
            let how = error.map { "\(($0 as? URLError)?.code.rawValue ?? -1)" } ?? "ok"
            seen.events.append(task is URLSessionDownloadTask ? "end \(how) of \(task.taskIdentifier)" : "end \(how)")
            seen.done = true
        }
    }

    func completed() async -> Bool {
        await within30Seconds { self.seen.withLock { $0.done } }
    }
}

/// A delegate written with the `async` form of the answer's disposition.
final class AsyncDecidingDelegate: URLSessionDataDelegate, @unchecked Sendable {
    let asked = Locked(0)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) async -> URLSession.ResponseDisposition {
        asked.withLock { $0 += 1 }
        return .cancel
    }
}

/// A delegate that follows redirects, or takes them as the answer, and records them.
final class RedirectedDelegate: URLSessionDataDelegate, @unchecked Sendable {
    struct Seen {
        var redirects: [String] = []
        var body = Data()
        var done = false
    }

    let seen = Locked(Seen())
    let follow: Bool

    init(follow: Bool) {
        self.follow = follow
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        seen.withLock { $0.redirects.append("\(response.statusCode) → \(request.url?.path ?? "")") }
        completionHandler(follow ? request : nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        seen.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        seen.withLock { $0.done = true }
    }

    func completed() async -> Bool {
        await within30Seconds { self.seen.withLock { $0.done } }
    }
}
