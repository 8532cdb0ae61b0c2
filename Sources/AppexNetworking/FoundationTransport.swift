import AppexLocking
public import AppexTransfers
import Foundation
import FoundationNetworking

/// The transport of in-process sessions (``AppexTransfers/InProcessTransport``): each
/// Appex `URLSession` of a default or ephemeral configuration runs its tasks on a
/// FoundationNetworking session of its own, whose reports it relays. AppexTransfers finds
/// this class by its name in a program that links this product; nothing imports it.
public final class FoundationTransport: InProcessTransport, @unchecked Sendable {
    private let session: FoundationNetworking.URLSession
    private let relay = Relay()

    public init(settings: InProcessSettings) {
        let configuration: FoundationNetworking.URLSessionConfiguration = settings.ephemeral ? .ephemeral : .default
        configuration.timeoutIntervalForRequest = settings.timeoutIntervalForRequest
        configuration.timeoutIntervalForResource = settings.timeoutIntervalForResource
        configuration.httpAdditionalHeaders = settings.httpAdditionalHeaders
        configuration.requestCachePolicy = FoundationNetworking.URLRequest.CachePolicy(rawValue: settings.requestCachePolicy.rawValue) ?? .useProtocolCachePolicy
        configuration.httpShouldSetCookies = settings.httpShouldSetCookies
        configuration.httpMaximumConnectionsPerHost = settings.httpMaximumConnectionsPerHost
        // Its own serial queue, so that the relay's reports keep their order.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "in-process session transport"
        session = FoundationNetworking.URLSession(configuration: configuration, delegate: relay, delegateQueue: queue)
    }

    /// The Appex session, and so each of its tasks, is gone: FoundationNetworking's session,
    /// which would keep its connections and its delegate for the process's life, goes too.
    deinit {
        session.finishTasksAndInvalidate()
    }

    public func task(for request: AppexTransfers.URLRequest, body: InProcessBody, events: InProcessEvents) -> any InProcessTask {
        // How to make the task again, with a credential, if the server asks for one.
        let make: @Sendable (FoundationNetworking.URLRequest) -> FoundationNetworking.URLSessionTask = { [session] converted in
            switch body {
            case .data(let data): session.uploadTask(with: converted, from: data)
            case .file(let file): session.uploadTask(with: converted, fromFile: file)
            case .none: session.dataTask(with: converted)
            }
        }
        let converted = Self.request(request)
        let inner = make(converted)
        let relayed = RelayedTask(inner)
        relay.add(inner, events, Relay.Remake(request: converted, make: make, task: relayed))
        return relayed
    }

    public func invalidate(cancellingTasks: Bool) {
        if cancellingTasks { return session.invalidateAndCancel() }
        // Not at once: a task answered with a credential is made again on this session, which
        // FoundationNetworking refuses once it is invalidated. So it waits for the last task.
        relay.whenIdle { [session] in session.finishTasksAndInvalidate() }
    }

    /// `request` as FoundationNetworking's.
    static func request(_ request: AppexTransfers.URLRequest) -> FoundationNetworking.URLRequest {
        var converted = FoundationNetworking.URLRequest(url: request.url ?? URL(fileURLWithPath: "/"),
                                                        cachePolicy: .init(rawValue: request.cachePolicy.rawValue) ?? .useProtocolCachePolicy,
                                                        timeoutInterval: request.timeoutInterval)
        converted.httpMethod = request.httpMethod
        converted.allHTTPHeaderFields = request.allHTTPHeaderFields
        converted.httpBody = request.httpBody
        converted.httpShouldHandleCookies = request.httpShouldHandleCookies
        return converted
    }

    /// FoundationNetworking's request as Appex's: a redirect's.
    static func request(_ request: FoundationNetworking.URLRequest) -> AppexTransfers.URLRequest {
        var converted = AppexTransfers.URLRequest(url: request.url ?? URL(fileURLWithPath: "/"),
                                                  cachePolicy: .init(rawValue: request.cachePolicy.rawValue) ?? .useProtocolCachePolicy,
                                                  timeoutInterval: request.timeoutInterval)
        converted.httpMethod = request.httpMethod
        converted.allHTTPHeaderFields = request.allHTTPHeaderFields
        converted.httpBody = request.httpBody
        converted.httpShouldHandleCookies = request.httpShouldHandleCookies
        return converted
    }

    /// FoundationNetworking's answer as Appex's, its header fields with it.
    static func response(_ response: FoundationNetworking.URLResponse) -> AppexTransfers.URLResponse {
        guard let http = response as? FoundationNetworking.HTTPURLResponse else {
            return AppexTransfers.URLResponse(url: response.url, expectedContentLength: response.expectedContentLength,
                                              mimeType: response.mimeType, textEncodingName: response.textEncodingName)
        }
        let fields = http.allHeaderFields.compactMap { field -> (name: String, value: String)? in
            guard let name = field.key as? String else { return nil }
            return (name, "\(field.value)")
        }.sorted { $0.name < $1.name }
        return AppexTransfers.HTTPURLResponse(url: http.url, statusCode: http.statusCode, expectedContentLength: http.expectedContentLength,
                                              headerFields: fields)
    }
}

/// One task, as the Appex session drives it: FoundationNetworking's task, or the one made
/// again in its place with a credential.
final class RelayedTask: InProcessTask, @unchecked Sendable {
    private let inner: Locked<FoundationNetworking.URLSessionTask>

    init(_ inner: FoundationNetworking.URLSessionTask) {
        self.inner = Locked(inner)
    }

    func replace(with task: FoundationNetworking.URLSessionTask) { inner.withLock { $0 = task } }
    func resume() { inner.withLock { $0 }.resume() }
    func suspend() { inner.withLock { $0 }.suspend() }
    func cancel() { inner.withLock { $0 }.cancel() }
}

/// FoundationNetworking's delegate: passes each task's reports to its events, in order, on
/// the transport's queue.
///
/// It answers challenges itself, since FoundationNetworking's own handling hangs (a `401`
/// whose challenge gets no credential never completes) and races (its retry with a
/// credential, made from the thread that answers, sometimes stalled a download until its
/// timeout and reported the `401`). FoundationNetworking reports the `401` and its body
/// before the challenge; the relay holds them, and passes them on only if they are the
/// answer. A credential is sent by making the task again with an `Authorization` header, in
/// place of the old one (docs/transfers.md, "Answers, challenges and redirects").
final class Relay: NSObject, FoundationNetworking.URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        var events: InProcessEvents
        var answered = false
        /// A `401` that asks for a credential, and the body that came with it so far.
        var held: (response: FoundationNetworking.URLResponse, body: [Data])?
        var remake: Remake
        /// How many credentials were sent for the task and refused.
        var failures = 0
    }

    /// How to make a task again with a credential, and the Appex task that then drives it.
    struct Remake: Sendable {
        let request: FoundationNetworking.URLRequest
        let make: @Sendable (FoundationNetworking.URLRequest) -> FoundationNetworking.URLSessionTask
        let task: RelayedTask
    }

    private let entries = Locked<[ObjectIdentifier: Entry]>([:])
    /// What to do once no task is left, if the session is to end then.
    private let idle = Locked<(@Sendable () -> Void)?>(nil)

    /// Runs `body` once no task is left: now, if none is.
    func whenIdle(_ body: @escaping @Sendable () -> Void) {
        let now = entries.withLock { entries in
            idle.withLock { $0 = entries.isEmpty ? nil : body }
            return entries.isEmpty
        }
        if now { body() }
    }

    /// Forgets `task`, and runs what waits for the last one if it was.
    private func forget(_ task: FoundationNetworking.URLSessionTask) -> Entry? {
        let (entry, then) = entries.withLock { entries -> (Entry?, (@Sendable () -> Void)?) in
            let entry = entries.removeValue(forKey: ObjectIdentifier(task))
            let then = entries.isEmpty ? idle.withLock { idle in defer { idle = nil }; return idle } : nil
            return (entry, then)
        }
        then?()
        return entry
    }

    func add(_ task: FoundationNetworking.URLSessionTask, _ events: InProcessEvents, _ remake: Remake) {
        entries.withLock { $0[ObjectIdentifier(task)] = Entry(events: events, remake: remake) }
    }

    /// `task`'s events, having told them its answer first if they have not heard it; nil
    /// while the answer is a `401` held for its challenge, or once the task has ended.
    private func events(of task: FoundationNetworking.URLSessionTask) -> InProcessEvents? {
        let (entry, tell) = entries.withLock { entries -> (Entry?, Bool) in
            guard var entry = entries[ObjectIdentifier(task)] else { return (nil, false) }
            if entry.held == nil, !entry.answered, let response = task.response, Self.asksForCredential(response) {
                entry.held = (response, [])
            }
            let tell = !entry.answered && entry.held == nil && task.response != nil
            entry.answered = entry.answered || tell
            entries[ObjectIdentifier(task)] = entry
            return (entry, tell)
        }
        if tell, let response = task.response { entry?.events.answered(FoundationTransport.response(response)) }
        return entry?.held == nil ? entry?.events : nil
    }

    /// Whether `response` is a `401` with a challenge, which FoundationNetworking follows
    /// with a challenge of its own.
    private static func asksForCredential(_ response: FoundationNetworking.URLResponse) -> Bool {
        guard let http = response as? FoundationNetworking.HTTPURLResponse, http.statusCode == 401 else { return false }
        return http.allHeaderFields.keys.contains { ($0 as? String)?.caseInsensitiveCompare("WWW-Authenticate") == .orderedSame }
    }

    func urlSession(_ session: FoundationNetworking.URLSession, dataTask: FoundationNetworking.URLSessionDataTask,
                    didReceive response: FoundationNetworking.URLResponse,
                    completionHandler: @escaping @Sendable (FoundationNetworking.URLSession.ResponseDisposition) -> Void) {
        _ = events(of: dataTask)
        completionHandler(.allow)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, dataTask: FoundationNetworking.URLSessionDataTask, didReceive data: Data) {
        guard let events = events(of: dataTask) else {
            let overflowed = entries.withLock { entries -> Bool in
                guard var held = entries[ObjectIdentifier(dataTask)]?.held else { return false }
                held.body.append(data)
                let overflowed = held.body.reduce(0) { $0 + $1.count } > Self.heldLimit
                // A refusal too long to hold is not the answer either: the task ends with why.
                entries[ObjectIdentifier(dataTask)]?.held = overflowed ? nil : held
                return overflowed
            }
            if overflowed {
                end(dataTask, with: Self.refusalTooLong)
                dataTask.cancel()
            }
            return
        }
        events.received(data)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, task: FoundationNetworking.URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        events(of: task)?.sent(bytesSent, totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, task: FoundationNetworking.URLSessionTask, didCompleteWithError error: (any Error)?) {
        // A held 401 whose challenge never came is the answer after all.
        if entries.withLock({ $0[ObjectIdentifier(task)]?.held != nil }) { return end(task, with: error) }
        let events = events(of: task)
        _ = forget(task)
        events?.completed(error)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, task: FoundationNetworking.URLSessionTask,
                    willPerformHTTPRedirection response: FoundationNetworking.HTTPURLResponse, newRequest request: FoundationNetworking.URLRequest,
                    completionHandler: @escaping @Sendable (FoundationNetworking.URLRequest?) -> Void) {
        guard let events = entries.withLock({ $0[ObjectIdentifier(task)]?.events }),
              let redirect = FoundationTransport.response(response) as? AppexTransfers.HTTPURLResponse else {
            return completionHandler(request)
        }
        events.redirected(redirect, FoundationTransport.request(request)) { next in
            completionHandler(next.map(FoundationTransport.request))
        }
    }

    func urlSession(_ session: FoundationNetworking.URLSession, task: FoundationNetworking.URLSessionTask,
                    didReceive challenge: FoundationNetworking.URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (FoundationNetworking.URLSession.AuthChallengeDisposition, FoundationNetworking.URLCredential?) -> Void) {
        // Holds the 401 now if nothing else did.
        _ = events(of: task)
        guard let (events, failures) = entries.withLock({ entries in entries[ObjectIdentifier(task)].map { ($0.events, $0.failures) } }) else {
            return completionHandler(.cancelAuthenticationChallenge, nil)
        }
        let space = challenge.protectionSpace
        let basic = space.authenticationMethod == AppexTransfers.NSURLAuthenticationMethodHTTPBasic
        // FoundationNetworking sends a credential with the task's first request, wherever a
        // redirect took it: to another server, that would give it the asking server's password.
        let asking = challenge.failureResponse?.url
        let sameOrigin = Self.origin(of: task.originalRequest?.url) == Self.origin(of: asking)
        let asked = AppexTransfers.URLAuthenticationChallenge(
            AppexTransfers.URLProtectionSpace(host: asking?.host ?? space.host, port: Self.origin(of: asking)?.port ?? space.port,
                                              protocol: asking?.scheme ?? space.protocol, realm: space.realm,
                                              authenticationMethod: space.authenticationMethod),
            proposedCredential: nil, previousFailureCount: failures,
            failureResponse: challenge.failureResponse.map(FoundationTransport.response))
        events.challenged(asked) { [self] disposition, credential in
            switch disposition {
            case .useCredential where basic && !sameOrigin:
                end(task, with: Self.redirectedAway(from: task.originalRequest?.url, to: challenge.failureResponse?.url), cancelling: completionHandler)
            case .useCredential where basic:
                guard let user = credential?.user, let password = credential?.password else { return end(task, with: nil, cancelling: completionHandler) }
                remake(task, user: user, password: password, completionHandler)
            case .useCredential:
                end(task, with: URLError(.userAuthenticationRequired, userInfo: [
                    NSLocalizedDescriptionKey: "the server asks for \(space.authenticationMethod) authentication, which an in-process session can't give; it answers HTTP Basic only",
                    NSLocalizedRecoverySuggestionErrorKey: "Set the request's Authorization header yourself, or have the server offer Basic authentication over HTTPS.",
                ]), cancelling: completionHandler)
            case .cancelAuthenticationChallenge:
                // FoundationNetworking's cancellation of a task past its answer is never reported.
                entries.withLock { $0[ObjectIdentifier(task)]?.held = nil }
                end(task, with: URLError(.cancelled, userInfo: [NSLocalizedDescriptionKey: "the delegate cancelled the authentication challenge"]),
                    cancelling: completionHandler)
            case .performDefaultHandling, .rejectProtectionSpace:
                end(task, with: nil, cancelling: completionHandler)
            }
        }
    }

    /// Sends a credential: the task is made again with it, in an `Authorization` header, and
    /// the new one takes the old one's place; the old one, with its held `401`, ends unheard.
    private func remake(_ task: FoundationNetworking.URLSessionTask, user: String, password: String,
                        _ completionHandler: @Sendable (FoundationNetworking.URLSession.AuthChallengeDisposition, FoundationNetworking.URLCredential?) -> Void) {
        guard var entry = entries.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else {
            return completionHandler(.cancelAuthenticationChallenge, nil)
        }
        var request = entry.remake.request
        request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        let next = entry.remake.make(request)
        entry.held = nil
        entry.answered = false
        entry.failures += 1
        entries.withLock { $0[ObjectIdentifier(next)] = entry }
        entry.remake.task.replace(with: next)
        completionHandler(.cancelAuthenticationChallenge, nil)
        next.resume()
    }

    /// Ends `task` with its held `401` as the answer, or with `error`; FoundationNetworking's
    /// task, which would wait for ever, is cancelled unheard.
    private func end(_ task: FoundationNetworking.URLSessionTask, with error: (any Error)?,
                     cancelling completionHandler: (@Sendable (FoundationNetworking.URLSession.AuthChallengeDisposition, FoundationNetworking.URLCredential?) -> Void)? = nil) {
        guard let entry = forget(task) else { return }
        if let held = entry.held {
            entry.events.answered(FoundationTransport.response(held.response))
            held.body.forEach(entry.events.received)
        }
        entry.events.completed(error)
        completionHandler?(.cancelAuthenticationChallenge, nil)
    }

    /// A server, as a URL names it: its scheme, host and port, the port its scheme's if the
    /// URL names none.
    private struct Origin: Equatable, CustomStringConvertible {
        var scheme: String
        var host: String
        var port: Int

        var description: String { "\(scheme)://\(host):\(port)" }
    }

    private static func origin(of url: URL?) -> Origin? {
        guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        return Origin(scheme: scheme, host: host, port: url.port ?? (scheme == "https" ? 443 : 80))
    }

    /// How much of a `401`'s body is held, at most, until its challenge is decided: 1 MiB.
    static let heldLimit = 1 << 20

    /// Why a task whose `401` came with more body than is held ended.
    private static let refusalTooLong = URLError(.dataLengthExceedsMaximum, userInfo: [
        NSLocalizedDescriptionKey: "the server answered 401 with more than \(heldLimit >> 20) MiB of body, which an in-process session holds at most while the challenge is decided",
        NSLocalizedRecoverySuggestionErrorKey: "Send the credential with the request (its Authorization header), or ask the server to answer 401 with a short body.",
    ])

    /// Why a credential for the server a task was redirected to is not sent.
    private static func redirectedAway(from original: URL?, to asking: URL?) -> URLError {
        let describe = { (url: URL?) in origin(of: url)?.description ?? "an unknown server" }
        return URLError(.userAuthenticationRequired, userInfo: [
            NSLocalizedDescriptionKey: "the server asking for a credential, \(describe(asking)), is not the one the task was made for, \(describe(original)), which redirected it there; an in-process session sends a credential only to the task's own server, since FoundationNetworking would send it with the first request",
            NSLocalizedRecoverySuggestionErrorKey: "Make the task with the URL the server redirects to, or set its Authorization header yourself.",
        ])
    }
}
