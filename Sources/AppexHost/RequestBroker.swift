import AppexCore
import AppexIPC
import AppexItems
import AppexSession
import AppexSystem
import AppexWire
import Foundation
import Synchronization

/// Runs a host process's extension requests over one connection to appexd: starts each
/// request, keeps the sessions to extension processes, and turns every way a request can
/// end into exactly one ``ExtensionRequestOutcome``.
///
/// There is one broker per `APPEX_HOME` in a process. When appexd goes away, every live
/// request is interrupted with ``ExtensionInterruption/Reason/daemonGone``, and the next
/// request connects again, starting a new daemon.
final class RequestBroker: Sendable {
    typealias Deliver = @Sendable (UUID, ExtensionRequestOutcome) -> Void

    private struct Request {
        var lifecycle = RequestLifecycle()
        let extensionIdentifier: String
        var pid: Int32 = -1
        let deliver: Deliver
    }

    private struct State {
        var requests: [UUID: Request] = [:]
        var sessions: [UInt64: HostSession] = [:]
        /// Every session this host has opened, including closed ones.
        var openedSessions: Set<UInt64> = []
        /// Requests waiting for a session another request's answer opened, by session.
        var sessionWaiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
    }

    /// How long a request whose session closed waits for appexd to say why, and one whose
    /// process appexd says ended waits for its session to close.
    static let reasonWait = DispatchTimeInterval.seconds(2)

    let daemon: DaemonClient
    private let state = Mutex(State())

    private init(daemon: DaemonClient) {
        self.daemon = daemon
    }

    // MARK: One broker per home

    private static let brokers = Mutex<[String: RequestBroker]>([:])

    /// The broker for `home`, connecting (and starting appexd) if there is none or the last
    /// one lost its daemon.
    static func shared(home: AppexHome = .current) async throws(ErrorInfo) -> RequestBroker {
        let key = home.daemonSocketURL.standardizedFileURL.path
        if let broker = brokers.withLock({ $0[key] }), broker.daemon.connection.closure == nil { return broker }
        let connected = RequestBroker(daemon: try await DaemonClient.connect(home: home))
        _ = connected.daemon.addHandlers { [weak connected] interrupted in
            connected?.interrupted(interrupted)
        } closed: { [weak connected] closure in
            connected?.daemonClosed(closure)
        }
        // Another task may have connected meanwhile: keep one broker per home.
        let broker = brokers.withLock { brokers in
            if let existing = brokers[key], existing.daemon.connection.closure == nil { return existing }
            brokers[key] = connected
            return connected
        }
        if broker !== connected { connected.daemon.close() }
        return broker
    }

    /// The broker for `home` if this process has one.
    static func existing(home: AppexHome = .current) -> RequestBroker? {
        brokers.withLock { $0[home.daemonSocketURL.standardizedFileURL.path] }
    }

    // MARK: Requests

    /// Starts a request to `extensionIdentifier` with `items`. `deliver` gets its outcome,
    /// once, on a background thread. Throws if appexd refuses to start it.
    func begin(_ extensionIdentifier: String, items: [NSExtensionItem], requestID: UUID = UUID(), deliver: @escaping Deliver) async throws(ErrorInfo) -> UUID {
        state.withLock { $0.requests[requestID] = Request(extensionIdentifier: extensionIdentifier, deliver: deliver) }
        let started: RequestStarted
        let socket: FileDescriptor?
        do throws(ErrorInfo) {
            (started, socket) = try await daemon.begin(requestID, extensionIdentifier: extensionIdentifier)
        } catch {
            state.withLock { _ = $0.requests.removeValue(forKey: requestID) }
            throw error
        }
        let session = socket.map { HostSession(id: started.sessionID, socket: $0, extensionIdentifier: extensionIdentifier) }
        if session == nil { await waitForSession(started.sessionID) }
        let (target, waiters) = state.withLock { state -> (HostSession?, [CheckedContinuation<Void, Never>]) in
            var waiters: [CheckedContinuation<Void, Never>] = []
            if let session { waiters = opened(started.sessionID, session, in: &state) }
            guard state.requests[requestID]?.lifecycle.started(session: started.sessionID) == true else { return (nil, waiters) }
            state.requests[requestID]?.pid = started.pid
            return (state.sessions[started.sessionID], waiters)
        }
        for waiter in waiters { waiter.resume() }
        if let session {
            session.start { [weak self] incoming in
                self?.handle(incoming, session: started.sessionID)
            } closed: { [weak self] closure in
                self?.sessionClosed(started.sessionID, closure)
            }
        }
        guard let target else {
            if state.withLock({ $0.requests[requestID] }) != nil {
                finish(requestID, .interrupted(ExtensionInterruption(.protocolError, message: "appexd started \(extensionIdentifier) on session \(started.sessionID), which this host doesn't have")))
            }
            return requestID
        }
        do throws(ConnectionError) {
            try target.send(requestID, items: items)
        } catch {
            // The session is closing; its close handler interrupts the request.
        }
        return requestID
    }

    /// Records `session` as open, and returns the requests waiting for it.
    private func opened(_ id: UInt64, _ session: HostSession, in state: inout State) -> [CheckedContinuation<Void, Never>] {
        state.sessions[id] = session
        state.openedSessions.insert(id)
        return state.sessionWaiters.removeValue(forKey: id) ?? []
    }

    /// Waits until session `id` has been opened here. appexd answers a client's requests in
    /// order, so the answer that opened a session arrives before any that reuses it; but the
    /// tasks that handle those answers run in any order, and a request that reuses a session
    /// may get here first. The wait is bounded: after ``reasonWait`` the request goes on, and
    /// finds no session.
    private func waitForSession(_ id: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let known = state.withLock { state in
                if state.openedSessions.contains(id) { return true }
                state.sessionWaiters[id, default: []].append(continuation)
                return false
            }
            if known { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.reasonWait) { [self] in
                for waiter in state.withLock({ $0.sessionWaiters.removeValue(forKey: id) }) ?? [] { waiter.resume() }
            }
        }
    }

    /// Cancels `requestID` on the host's behalf: its outcome is a cancellation, and appexd
    /// is told the host no longer waits.
    func cancel(_ requestID: UUID) {
        let error = CocoaError(.userCancelled, userInfo: [NSLocalizedDescriptionKey: "The host cancelled request \(requestID)."])
        if finish(requestID, .cancelled(error), notifyDaemon: false) {
            try? daemon.connection.send(.cancelRequest(RequestReference(requestID)))
        }
    }

    /// The pid of the process serving `requestID`, or -1.
    func pid(of requestID: UUID) -> Int32 {
        state.withLock { $0.requests[requestID]?.pid } ?? -1
    }

    // MARK: Events

    private func handle(_ incoming: IncomingMessage, session: UInt64) {
        switch incoming.message {
        case .completeRequest(let answer):
            let outcome: ExtensionRequestOutcome
            do throws(ErrorInfo) {
                outcome = .completed(try ReceivedItems.items(answer.items, in: incoming))
            } catch {
                outcome = .interrupted(ExtensionInterruption(.protocolError, message: "the extension's returned items were malformed: \(error.message)"))
            }
            finish(answer.requestID, outcome, inSession: session)
        case .cancelledRequest(let cancelled):
            finish(cancelled.requestID, .cancelled(cancelled.error.nsError), inSession: session)
        case .failure:
            // The extension could not start; appexd reports why as an interruption.
            break
        default:
            let connection = state.withLock { $0.sessions[session]?.connection }
            FileHandle.standardError.write(Data("appex: the extension sent \(incoming.message.name) on session \(session), which a host never receives; closing it\n".utf8))
            connection?.close()
        }
    }

    private func sessionClosed(_ session: UInt64, _ closure: ConnectionClosure) {
        let closures = state.withLock { state -> [(UUID, RequestLifecycle.SessionClosure)] in
            state.sessions[session] = nil
            return state.requests.keys.filter { state.requests[$0]!.lifecycle.session == session }.map { requestID in
                (requestID, state.requests[requestID]!.lifecycle.sessionClosed())
            }
        }
        // Whoever closed it, the process must not be given this host's next request.
        try? daemon.connection.send(.closeSession(SessionReference(session)))
        var waiting: [UUID] = []
        for (requestID, action) in closures {
            if case .protocolError(let error) = closure, action != .ignore {
                finish(requestID, .interrupted(ExtensionInterruption(.protocolError, message: "the extension sent a malformed frame: \(error)")))
                continue
            }
            switch action {
            case .deliver(let interruption): finish(requestID, .interrupted(interruption))
            case .waitForReason: waiting.append(requestID)
            case .ignore: break
            }
        }
        guard !waiting.isEmpty else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.reasonWait) { [weak self, waiting] in
            for requestID in waiting {
                self?.finish(requestID, .interrupted(ExtensionInterruption(
                    .crashed(signal: nil, exitStatus: nil), message: "the extension closed its session without answering, and appexd gave no reason")))
            }
        }
    }

    /// appexd says how requests ended whose process ended without answering them. For a
    /// request whose session is still open, the reason waits for the session to close,
    /// after whatever the process sent last, and for at most ``reasonWait``.
    private func interrupted(_ message: RequestInterrupted) {
        let interruption = ExtensionInterruption(message.reason)
        for requestID in message.requestIDs {
            switch state.withLock({ $0.requests[requestID]?.lifecycle.daemonReported(interruption) }) {
            case .deliver?:
                finish(requestID, .interrupted(interruption))
            case .holdUntilSessionCloses?:
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.reasonWait) { [weak self] in
                    self?.finish(requestID, .interrupted(interruption))
                }
            case .ignore?, nil:
                break
            }
        }
    }

    private func daemonClosed(_ closure: ConnectionClosure) {
        let (requests, sessions) = state.withLock { state in
            defer { state.sessions.removeAll() }
            return (Array(state.requests.keys), Array(state.sessions.values))
        }
        for requestID in requests {
            finish(requestID, .interrupted(ExtensionInterruption(.daemonGone, message: "appexd went away (\(closure)) before the request ended")), notifyDaemon: false)
        }
        for session in sessions { session.connection.close() }
    }

    /// Ends `requestID` with `outcome` if it hasn't ended and, when `session` is given, it
    /// runs there. Delivers the outcome, acknowledges a completion to the extension after
    /// the host's block has run, releases the request's providers, and tells appexd.
    /// Returns whether this call ended it.
    @discardableResult
    private func finish(_ requestID: UUID, _ outcome: ExtensionRequestOutcome, inSession session: UInt64? = nil,
                        notifyDaemon: Bool = true) -> Bool {
        let ended = state.withLock { state -> (Request, HostSession?)? in
            guard var request = state.requests[requestID] else { return nil }
            let current = request.lifecycle.session
            if let session, current != session { return nil }
            guard request.lifecycle.end() else { return nil }
            state.requests[requestID] = nil
            return (request, current.flatMap { state.sessions[$0] })
        }
        guard let (request, hostSession) = ended else { return false }
        request.deliver(requestID, outcome)
        if case .completed = outcome {
            hostSession?.acknowledge(requestID)
        } else {
            hostSession?.providers.release(requestID)
        }
        if notifyDaemon { daemon.end(requestID) }
        return true
    }
}
