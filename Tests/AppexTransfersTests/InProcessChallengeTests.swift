import AppexLocking
import AppexTestServer
@testable import AppexTransfers
import Foundation
import Testing

/// An in-process task whose server asks for a credential (`401` with HTTP Basic), against a
/// real server: the delegate is asked, as Apple's is, and its answer is carried out. Before,
/// such a task with no credential to give never completed (FoundationNetworking waits for
/// ever), and a delegate was never asked.
@Suite(.timeLimit(.minutes(1))) final class InProcessChallengeTests {
    let server: LoopbackHTTPServer

    init() async throws {
        server = try await LoopbackHTTPServer.start()
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    static let right = URLCredential(user: LoopbackHTTPServer.privateUser, password: LoopbackHTTPServer.privatePassword, persistence: .none)
    static let wrong = URLCredential(user: LoopbackHTTPServer.privateUser, password: "guess", persistence: .none)

    @Test func theDelegatesCredentialIsSentAndOnlyTheAnswerToItReachesTheDelegate() async throws {
        let delegate = ChallengedDelegate(answers: [(.useCredential, Self.right)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/private/bytes/70000"))
        task.resume()
        #expect(await delegate.completed())
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.completion == "ok")
        #expect(seen.body.count == 70_000 && GeneratedBytes.matches(seen.body), "the 401's body never reached the delegate")
        #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
        let challenge = try #require(seen.challenges.first)
        #expect(seen.challenges.count == 1)
        #expect(challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic)
        #expect(challenge.protectionSpace.realm == LoopbackHTTPServer.privateRealm)
        #expect(challenge.protectionSpace.host == "127.0.0.1" && challenge.protectionSpace.port == server.url("/").port)
        #expect(challenge.protectionSpace.protocol == NSURLProtectionSpaceHTTP && !challenge.protectionSpace.receivesCredentialSecurely)
        #expect(challenge.previousFailureCount == 0 && challenge.proposedCredential == nil)
        #expect((challenge.failureResponse as? HTTPURLResponse)?.statusCode == 401)
        let requests = server.seen("/private/bytes/70000")
        #expect(requests.count == 2 && requests[0].headers["authorization"] == nil && requests[1].headers["authorization"]?.hasPrefix("Basic ") == true)
    }

    @Test func aRefusedCredentialIsAskedForAgainWithItsCount() async throws {
        let delegate = ChallengedDelegate(answers: [(.useCredential, Self.wrong), (.useCredential, Self.right)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: server.url("/private/bytes/10")).resume()
        #expect(await delegate.completed())
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.challenges.map(\.previousFailureCount) == [0, 1])
        #expect(seen.completion == "ok" && seen.body.count == 10)
    }

    @Test(arguments: [URLSession.AuthChallengeDisposition.performDefaultHandling, .rejectProtectionSpace])
    func withNoCredentialTheServers401IsTheAnswer(disposition: URLSession.AuthChallengeDisposition) async throws {
        let delegate = ChallengedDelegate(answers: [(disposition, nil)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/private/bytes/10"))
        task.resume()
        #expect(await delegate.completed())
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.completion == "ok", "a 401 is an answer, not an error")
        #expect(String(decoding: seen.body, as: UTF8.self) == LoopbackHTTPServer.signInFirst, "the 401's body, once")
        #expect((task.response as? HTTPURLResponse)?.statusCode == 401)
        #expect(seen.challenges.count == 1)
    }

    @Test func a401WithMoreBodyThanIsHeldEndsTheTaskSayingSo() async throws {
        // Held until its challenge is decided, a refusal's body could fill the process.
        let delegate = ChallengedDelegate(answers: [(.performDefaultHandling, nil)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: server.url("/private/bytes/10"))
        request.setValue("\(3 << 20)", forHTTPHeaderField: "X-Answer-Bytes")
        let task = session.dataTask(with: request)
        task.resume()
        #expect(await delegate.completed())
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.completionCode == URLError.Code.dataLengthExceedsMaximum.rawValue, "\(String(describing: task.error))")
        #expect(task.error?.localizedDescription.contains("401 with more than 1 MiB") == true)
        #expect(seen.body.isEmpty, "none of the refusal reached the delegate")
    }

    @Test func theSharedSessionWithNoDelegateEndsWithThe401() async throws {
        // This waited for ever before: FoundationNetworking's default handling never completes.
        let (data, response) = try await URLSession.shared.data(from: server.url("/private/bytes/10"))
        #expect((response as? HTTPURLResponse)?.statusCode == 401)
        #expect(String(decoding: data, as: UTF8.self) == LoopbackHTTPServer.signInFirst)
    }

    @Test func aTaskWithACompletionHandlerIsChallengedThroughTheSessionsDelegate() async throws {
        let delegate = ChallengedDelegate(answers: [(.useCredential, Self.right)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(from: server.url("/private/bytes/1000"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && data.count == 1000 && GeneratedBytes.matches(data))
        #expect(delegate.seen.withLock { $0.challenges.count } == 1)
        #expect(delegate.seen.withLock { $0.body.isEmpty }, "the body went to the completion handler only")
    }

    @Test func aPostIsSentAgainWithTheCredentialAndItsAnswerIsTheTasks() async throws {
        let delegate = ChallengedDelegate(answers: [(.useCredential, Self.right)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: server.url("/private/posts"))
        request.httpMethod = "POST"
        request.httpBody = Data("a post".utf8)
        let (data, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201, "\(response)")
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("{\"bytes\": 6, "))
        #expect(server.uploads(at: "/private/posts").last?.carries(Data("a post".utf8)) == true)
    }

    @Test func aCredentialForTheServerARedirectLedToIsNotSentToTheFirst() async throws {
        // FoundationNetworking would send it with the task's first request: here, to the
        // server at 127.0.0.1 that redirected to "localhost", which asked for it.
        let port = try #require(server.url("/").port)
        server.script("/away", [.answer(302, headers: ["Location": "http://localhost:\(port)/private/bytes/10"])])
        let delegate = ChallengedDelegate(answers: [(.useCredential, Self.right)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/away"))
        task.resume()
        #expect(await delegate.completed())
        #expect(server.seen("/away").allSatisfy { $0.headers["authorization"] == nil }, "\(server.seen("/away"))")
        #expect(server.seen("/private/bytes/10").allSatisfy { $0.headers["authorization"] == nil })
        let error = try #require(task.error as? URLError)
        #expect(error.code == .userAuthenticationRequired && error.localizedDescription.contains("http://localhost:\(port)"), "\(error)")
        let challenge = try #require(delegate.seen.withLock { $0.challenges.first })
        #expect(challenge.protectionSpace.host == "localhost", "the space is the asking server's")
    }

    @Test func aCredentialKeptForTheSessionIsProposedAndSentByDefault() async throws {
        let kept = URLCredential(user: LoopbackHTTPServer.privateUser, password: LoopbackHTTPServer.privatePassword, persistence: .forSession)
        let delegate = ChallengedDelegate(answers: [(.useCredential, kept), (.performDefaultHandling, nil)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let (first, _) = try await session.data(from: server.url("/private/bytes/20"))
        let (second, response) = try await session.data(from: server.url("/private/bytes/30"))
        #expect(first.count == 20 && second.count == 30 && (response as? HTTPURLResponse)?.statusCode == 200)
        let challenges = delegate.seen.withLock { $0.challenges }
        #expect(challenges.count == 2 && challenges.first?.proposedCredential == nil)
        #expect(challenges.last?.proposedCredential?.user == LoopbackHTTPServer.privateUser, "the kept credential is proposed")
    }

    @Test func cancellingTheChallengeCancelsTheTask() async throws {
        let delegate = ChallengedDelegate(answers: [(.cancelAuthenticationChallenge, nil)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: server.url("/private/bytes/10")).resume()
        #expect(await delegate.completed())
        let seen = delegate.seen.withLock { $0 }
        #expect(seen.completionCode == URLError.cancelled.rawValue, "\(seen.completion ?? "")")
        #expect(seen.body.isEmpty)
    }

    @Test func aDelegateThatAnswersInTheAsyncFormIsAsked() async throws {
        let delegate = AsyncChallengedDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(from: server.url("/private/bytes/300"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && data.count == 300)
        #expect(delegate.asked.withLock { $0 } == 1)
    }

    @Test func aDownloadIsChallengedAndWithoutACredentialHasTheRefusalAsItsFile() async throws {
        let delegate = ChallengedDelegate(answers: [(.useCredential, Self.right), (.performDefaultHandling, nil)])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let (file, response) = try await session.download(from: server.url("/private/bytes/200000"))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let bytes = try Data(contentsOf: file)
        #expect(bytes.count == 200_000 && GeneratedBytes.matches(bytes))

        // As on Apple's systems, a download's answer is its file, whatever its status.
        let (refusal, refused) = try await session.download(from: server.url("/private/bytes/10"))
        defer { try? FileManager.default.removeItem(at: refusal) }
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)
        #expect(try String(contentsOf: refusal, encoding: .utf8) == LoopbackHTTPServer.signInFirst)
    }

    @Test func a401ThatOffersNoBasicChallengeIsTheAnswerUnasked() async throws {
        server.script("/bearer", [.answer(401, headers: ["WWW-Authenticate": "Bearer"])])
        let delegate = ChallengedDelegate(answers: [])
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/bearer"))
        task.resume()
        #expect(await delegate.completed())
        #expect(delegate.seen.withLock { $0.completion } == "ok")
        #expect((task.response as? HTTPURLResponse)?.statusCode == 401)
        #expect(delegate.seen.withLock { $0.challenges.isEmpty }, "only Basic is asked about")
    }
}

/// A delegate that answers each challenge in turn with the answers it was given, and
/// records what it hears.
final class ChallengedDelegate: URLSessionDataDelegate, @unchecked Sendable {
    struct Seen {
        var challenges: [URLAuthenticationChallenge] = []
        var body = Data()
        var completion: String?
        var completionCode: Int?
    }

    let seen = Locked(Seen())
    private let answers: Locked<[(URLSession.AuthChallengeDisposition, URLCredential?)]>

    init(answers: [(URLSession.AuthChallengeDisposition, URLCredential?)]) {
        self.answers = Locked(answers)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        seen.withLock { $0.challenges.append(challenge) }
        let answer = answers.withLock { $0.isEmpty ? (.cancelAuthenticationChallenge, nil) : $0.removeFirst() }
        completionHandler(answer.0, answer.1)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        seen.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        seen.withLock { seen in
            seen.completion = error.map { "\($0)" } ?? "ok"
            seen.completionCode = (error as? URLError)?.code.rawValue
        }
    }

    func completed() async -> Bool {
        await within30Seconds { self.seen.withLock { $0.completion != nil } }
    }
}

/// A delegate written with the `async` form of the challenge, as Swift offers Apple's.
final class AsyncChallengedDelegate: URLSessionTaskDelegate, @unchecked Sendable {
    let asked = Locked(0)

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        asked.withLock { $0 += 1 }
        return (.useCredential, InProcessChallengeTests.right)
    }
}
