import AppexCore
import AppexIPC
import AppexItems
import AppexLocking
import AppexSession
import AppexSystem
import AppexWire
import Foundation

/// Runs a host process's extension requests over one connection to appexd: starts each
/// request, keeps the sessions to extension processes, and turns every way a request can
/// end into exactly one ``ExtensionRequestOutcome``.
///
/// There is one broker per `APPEX_HOME` in a process. When appexd goes away, every live
/// request is interrupted with ``ExtensionInterruption/Reason/daemonGone``, and the next
/// request connects again, starting a new daemon.
///
/// A request to an extension this host already has a live session with goes straight to
/// the extension, and appexd only hears of it (`RequestBegun`), with no round trip. Such a
/// session stays open until appexd says it is idle and no request is on it (`SessionIdle`),
/// so a request and appexd's ending of the process never cross (docs/runtime.md).
final class RequestBroker: Sendable {
    typealias Deliver = @Sendable (UUID, ExtensionRequestOutcome) -> Void
    /// Takes the extension's point messages about a request, in order, on a background thread.
    typealias PointMessages = @Sendable (PointMessage) -> Void

    private struct Request {
        var lifecycle = RequestLifecycle()
        let extensionIdentifier: String
        var pid: Int32 = -1
        let deliver: Deliver
        /// The extension object the host started the request with, whose blocks answer what
        /// the extension asks of its host: files to pick, URLs to open.
        var owner: NSExtension?
        var pointMessages: PointMessages?
    }

    private struct State {
        var requests: [UUID: Request] = [:]
        var sessions: [UInt64: HostSession] = [:]
        /// Open sessions that take no new request: appexd asked to close them, or said
        /// their process ended.
        var retired: Set<UInt64> = []
        /// The sessions this host has opened: the open ones, and closed ones while a
        /// `BeginRequest` is in flight, whose answer may still name one.
        var openedSessions: Set<UInt64> = []
        /// Requests waiting for a session another request's answer opened, by session.
        var sessionWaiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
    }

    /// How long a request whose session closed waits for appexd to say why, and one whose
    /// process appexd says ended waits for its session to close.
    static let reasonWait = DispatchTimeInterval.seconds(2)

    let daemon: DaemonClient
    private let state = Locked(State())

    private init(daemon: DaemonClient) {
        self.daemon = daemon
    }

    // MARK: One broker per home

    private static let brokers = Locked<[String: RequestBroker]>([:])

    /// The broker for `home`, connecting (and starting appexd) if there is none or the last
    /// one lost its daemon.
    static func shared(home: AppexHome = .current) async throws(ErrorInfo) -> RequestBroker {
        let key = home.daemonSocketURL.standardizedFileURL.path
        if let broker = brokers.withLock({ $0[key] }), broker.isConnected { return broker }
        let connected = RequestBroker(daemon: try await DaemonClient.connect(home: home))
        connected.daemon.setHandlers { [weak connected] interrupted in
            connected?.interrupted(interrupted)
        } sessionIdle: { [weak connected] session in
            connected?.sessionIdle(session)
        } pickFiles: { [weak connected] asked in
            connected?.pickFiles(asked)
        } openURL: { [weak connected] asked in
            connected?.confirmOpenURL(asked)
        } closed: { [weak connected] closure in
            connected?.daemonClosed(closure)
        }
        // Another task may have connected meanwhile: keep one broker per home.
        let broker = brokers.withLock { brokers in
            if let existing = brokers[key], existing.isConnected { return existing }
            brokers[key] = connected
            return connected
        }
        if broker !== connected { connected.daemon.close() }
        return broker
    }

    /// Whether the connection to appexd is open; a broker that lost it is replaced.
    var isConnected: Bool { daemon.connection.closure == nil }

    /// The broker for `home` if this process has one.
    static func existing(home: AppexHome = .current) -> RequestBroker? {
        brokers.withLock { $0[home.daemonSocketURL.standardizedFileURL.path] }
    }

    // MARK: Requests

    /// Starts a request to `extensionIdentifier` with `items`. `deliver` gets its outcome,
    /// once, on a background thread. Throws if appexd refuses to start it.
    /// `pointMessages`, if given, gets the extension's point messages about the request.
    func begin(_ extensionIdentifier: String, items: [NSExtensionItem], requestID: UUID = UUID(), owner: NSExtension? = nil,
               pointMessages: PointMessages? = nil, deliver: @escaping Deliver) async throws(ErrorInfo) -> UUID {
        let request = Request(extensionIdentifier: extensionIdentifier, deliver: deliver, owner: owner, pointMessages: pointMessages)
        if let session = beginOnLiveSession(request, requestID: requestID) {
            send(requestID, items: items, on: session)
            return requestID
        }
        state.withLock { $0.requests[requestID] = request }
        let started: RequestStarted
        let socket: FileDescriptor?
        do throws(ErrorInfo) {
            (started, socket) = try await daemon.begin(requestID, extensionIdentifier: extensionIdentifier)
        } catch where error.domain == AppexErrorDomain.runtime && error.code == DaemonConnector.goneCode {
            // appexd went away (or began shutting down) with the request in its hands, perhaps
            // after launching the extension: the request was interrupted, not refused.
            finish(requestID, .interrupted(ExtensionInterruption(.daemonGone, message: error.message)), notifyDaemon: false)
            return requestID
        } catch {
            state.withLock { _ = $0.requests.removeValue(forKey: requestID) }
            throw error
        }
        let session = socket.map { HostSession(id: started.sessionID, socket: $0, extensionIdentifier: extensionIdentifier, pid: started.pid) }
        session?.greet()
        if session == nil { await waitForSession(started.sessionID) }
        let (target, waiters) = state.withLock { state -> (HostSession?, [CheckedContinuation<Void, Never>]) in
            var waiters: [CheckedContinuation<Void, Never>] = []
            if let session { waiters = opened(started.sessionID, session, in: &state) }
            defer { forgetClosedSessions(in: &state) }
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
        send(requestID, items: items, on: target)
        return requestID
    }

    /// Starts `requestID` on a live session this host has with the extension, if it has one
    /// that takes requests and appexd speaks `RequestBegun`; returns the session. The
    /// request is recorded on the session before appexd hears of it, so that however the
    /// process ends, appexd's report, which names the session, reaches the request.
    private func beginOnLiveSession(_ request: Request, requestID: UUID) -> HostSession? {
        guard daemon.version >= WireVersion.directRequests else { return nil }
        let session = state.withLock { state -> HostSession? in
            guard let session = state.sessions.values.first(where: { $0.runs(request.extensionIdentifier) && !state.retired.contains($0.id) }) else {
                return nil
            }
            var request = request
            request.pid = session.pid
            _ = request.lifecycle.started(session: session.id)
            state.requests[requestID] = request
            return session
        }
        guard let session else { return nil }
        do throws(ConnectionError) {
            try daemon.notify(.requestBegun(RequestBegun(requestID: requestID, sessionID: session.id)))
        } catch {
            finish(requestID, .interrupted(ExtensionInterruption(.daemonGone, message: "appexd went away (\(error)) before the request began")), notifyDaemon: false)
        }
        return session
    }

    private func send(_ requestID: UUID, items: [NSExtensionItem], on session: HostSession) {
        do throws(ConnectionError) {
            try session.send(requestID, items: items)
        } catch {
            // The session is closing; its close handler interrupts the request.
        }
    }

    /// Records `session` as open, and returns the requests waiting for it.
    private func opened(_ id: UInt64, _ session: HostSession, in state: inout State) -> [CheckedContinuation<Void, Never>] {
        state.sessions[id] = session
        state.openedSessions.insert(id)
        return state.sessionWaiters.removeValue(forKey: id) ?? []
    }

    /// Forgets closed sessions once no request waits for appexd's answer to its
    /// `BeginRequest`, since only such an answer could name one; so a host that runs for
    /// days doesn't keep every session it ever had.
    private func forgetClosedSessions(in state: inout State) {
        guard !state.requests.values.contains(where: { $0.lifecycle.phase == .starting }) else { return }
        state.openedSessions.formIntersection(state.sessions.keys)
    }

    /// How many sessions this host remembers having opened, for tests.
    var rememberedSessionCount: Int { state.withLock { $0.openedSessions.count } }

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

    /// Sends the extension serving `requestID` one of its point's messages. Throws if the
    /// request isn't running, or its extension hasn't shown that it speaks point messages by
    /// sending one first.
    func send(_ name: String, body: [UInt8], sequence: UInt64, for requestID: UUID) throws(ErrorInfo) {
        let session = state.withLock { state -> HostSession? in
            state.requests[requestID]?.lifecycle.session.flatMap { state.sessions[$0] }
        }
        guard let session else {
            throw AppexErrorDomain.runtimeError(1, "request \(requestID) is not running, so \(name) can't be sent to it")
        }
        guard session.speaksPointMessages else {
            throw AppexErrorDomain.runtimeError(1, "\(session.extensionIdentifier) has not spoken point messages on its session (protocol version \(WireVersion.pointMessages)), so \(name) can't be sent to it")
        }
        do throws(ConnectionError) {
            try session.connection.send(.pointMessage(PointMessage(requestID: requestID, sequence: sequence, name: name, body: body)))
        } catch {
            throw AppexErrorDomain.runtimeError(1, "\(name) could not reach \(session.extensionIdentifier): \(error)")
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
            finish(answer.requestID, outcome, inSession: session, acknowledge: !answer.withoutAcknowledgement)
        case .cancelledRequest(let cancelled):
            finish(cancelled.requestID, .cancelled(cancelled.error.nsError), inSession: session)
        case .pointMessage(let message):
            let receiver = state.withLock { state -> PointMessages?? in
                guard let request = state.requests[message.requestID], request.lifecycle.session == session else { return nil }
                return .some(request.pointMessages)
            }
            switch receiver {
            case .some(.some(let receive)): receive(message)
            case .some(.none): refuseConversation(message, session: session)
            case .none: Self.log("the extension sent \(message.name) for request \(message.requestID), which is not running on session \(session); dropped")
            }
        case .failure:
            // The extension could not start; appexd reports why as an interruption.
            break
        default:
            let connection = state.withLock { $0.sessions[session]?.connection }
            Self.log("the extension sent \(incoming.message.name) on session \(session), which a host never receives; closing it")
            connection?.close()
        }
    }

    /// Ends a request whose extension wants to talk while it runs (a Share extension's
    /// compose sheet, say) when its host started it as a plain request, which would
    /// otherwise wait for an answer that can't come.
    private func refuseConversation(_ message: PointMessage, session: UInt64) {
        let (name, point) = state.withLock { state in
            (state.sessions[session]?.extensionIdentifier ?? "the extension", state.requests[message.requestID]?.owner?.summary.point)
        }
        let error = AppexErrorDomain.runtimeError(
            5, "\(name) sent its point's \"\(message.name)\" message, which this host doesn't take: the extension waits for a host that talks with it while it runs",
            recovery: Self.interactiveHosts(of: point))
        if finish(message.requestID, .cancelled(error.nsError), inSession: session, notifyDaemon: false) {
            try? daemon.connection.send(.cancelRequest(RequestReference(message.requestID)))
        }
    }

    /// Where an extension of `point` that talks while it runs finds a host that answers it.
    private static func interactiveHosts(of point: String?) -> String {
        switch point {
        case ExtensionPoint.share.id?:
            "Use a host that draws a Share extension's compose sheet: `appex share`, or beginInteractiveRequest(withInputItems:) (AppexShare's ComposeSession) in an app."
        case ExtensionPoint.today.id?:
            "Use a host that shows Today widgets: `appex today`, or AppexToday's WidgetSession in an app."
        default:
            "Use a host that draws the point's interface, with beginInteractiveRequest(withInputItems:)."
        }
    }

    private static func log(_ message: String) {
        StandardError.write(line: "\(ProcessInfo.processInfo.processName): \(message)")
    }

    /// Shows the user the picker of the request the extension names, and answers appexd with
    /// the files picked, opened read-only, or why there are none.
    private func pickFiles(_ asked: PickFiles) {
        let request = state.withLock { $0.requests[asked.requestID] }
        let daemon = self.daemon
        Task {
            let (answer, descriptors) = await Self.answer(asked, running: request != nil, picker: request?.owner?.userFilePickerBlock)
            try? daemon.connection.send(.pickedFiles(answer), descriptors: descriptors)
            descriptors.forEach { $0.close() }
        }
    }

    /// The answer to `asked` from the request's picker, if the request runs here and its
    /// host has one, with the descriptors it carries.
    private static func answer(_ asked: PickFiles, running: Bool, picker: NSExtension.FilePicker?) async -> (PickedFiles, [FileDescriptor]) {
        guard running else { return (PickedFiles(call: asked.call, reason: "request \(asked.requestID) is not running in this host"), []) }
        guard let picker else {
            return (PickedFiles(call: asked.call, reason: "this host offers no file picker: its NSExtension has no userFilePickerBlock"), [])
        }
        let request = FilePickerRequest(asked)
        guard let urls = await picker(asked.requestID, request) else { return (PickedFiles(call: asked.call), []) }
        let handover = PickedFileHandover(urls, for: request)
        return (handover.answer(asked.call), handover.descriptors)
    }

    /// Asks the user, through the request's confirmation block, whether the extension may
    /// open a URL, and answers appexd.
    private func confirmOpenURL(_ asked: OpenURL) {
        let request = asked.requestID.flatMap { id in state.withLock { $0.requests[id] } }
        let daemon = self.daemon
        Task {
            let answer = await Self.answer(asked, running: request != nil, confirm: request?.owner?.urlOpenConfirmationBlock)
            try? daemon.connection.send(.openURLResult(answer))
        }
    }

    /// The answer to `asked` from the request's confirmation block, if the request runs here
    /// and its host has one.
    private static func answer(_ asked: OpenURL, running: Bool, confirm: NSExtension.URLOpenConfirmation?) async -> OpenURLResult {
        guard running else {
            return OpenURLResult(call: asked.call, opened: false, reason: "request \(asked.requestID?.uuidString ?? "(none)") is not running in this host")
        }
        guard let confirm else {
            return OpenURLResult(call: asked.call, opened: false, reason: "this host opens no URLs for its extensions: its NSExtension has no urlOpenConfirmationBlock")
        }
        guard let opening = URLOpenRequest(asked) else {
            return OpenURLResult(call: asked.call, opened: false, reason: "\"\(asked.url.prefix(200))\" is not a URL")
        }
        let confirmed = await confirm(opening)
        return OpenURLResult(call: asked.call, opened: confirmed, reason: confirmed ? "" : "the user declined to open \(asked.url)")
    }

    /// appexd asks this host to close `session`, idle for its grace period. A request sent
    /// on it meanwhile keeps it open: that request's `RequestBegun`, on its way to appexd,
    /// makes the process busy again.
    private func sessionIdle(_ session: UInt64) {
        let idle = state.withLock { state -> HostSession? in
            guard let open = state.sessions[session],
                  !state.requests.values.contains(where: { $0.lifecycle.session == session }) else { return nil }
            state.retired.insert(session)
            return open
        }
        // Its close handler tells appexd, which ends the process.
        idle?.connection.close()
    }

    private func sessionClosed(_ session: UInt64, _ closure: ConnectionClosure) {
        let closures = state.withLock { state -> [(UUID, RequestLifecycle.SessionClosure)] in
            state.sessions[session] = nil
            state.retired.remove(session)
            forgetClosedSessions(in: &state)
            return state.requests.keys.filter { state.requests[$0]!.lifecycle.session == session }.map { requestID in
                (requestID, state.requests[requestID]!.lifecycle.sessionClosed())
            }
        }
        // A malformed frame ends the session's requests here, before appexd is told to close
        // the session: the SIGKILL that brings must not be reported in its place.
        if case .protocolError(let error) = closure {
            for (requestID, action) in closures where action != .ignore {
                finish(requestID, .interrupted(ExtensionInterruption(.protocolError, message: "the extension sent a malformed frame: \(error)")))
            }
        }
        // Whoever closed it, the process must not be given this host's next request.
        try? daemon.connection.send(.closeSession(SessionReference(session)))
        if case .protocolError = closure { return }
        var waiting: [UUID] = []
        for (requestID, action) in closures {
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

    /// appexd says how requests ended whose process ended without answering them: those it
    /// names, and every request on the process's session, which may include one sent
    /// straight on it that appexd had not heard of yet. For a request whose session is still
    /// open, the reason waits for the session to close, after whatever the process sent
    /// last, and for at most ``reasonWait``.
    private func interrupted(_ message: RequestInterrupted) {
        let interruption = ExtensionInterruption(message.reason)
        let reports = state.withLock { state -> [(UUID, RequestLifecycle.Report)] in
            var requestIDs = Set(message.requestIDs)
            if message.sessionID != 0 {
                if state.sessions[message.sessionID] != nil { state.retired.insert(message.sessionID) }
                requestIDs.formUnion(state.requests.filter { $0.value.lifecycle.session == message.sessionID }.keys)
            }
            return requestIDs.compactMap { requestID in
                (state.requests[requestID]?.lifecycle.daemonReported(interruption)).map { (requestID, $0) }
            }
        }
        for (requestID, report) in reports {
            switch report {
            case .deliver:
                finish(requestID, .interrupted(interruption))
            case .holdUntilSessionCloses:
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.reasonWait) { [weak self] in
                    self?.finish(requestID, .interrupted(interruption))
                }
            case .ignore:
                break
            }
        }
    }

    private func daemonClosed(_ closure: ConnectionClosure) {
        let (requests, sessions) = state.withLock { state in
            defer {
                state.sessions.removeAll()
                state.retired.removeAll()
            }
            return (Array(state.requests.keys), Array(state.sessions.values))
        }
        for requestID in requests {
            finish(requestID, .interrupted(ExtensionInterruption(.daemonGone, message: "appexd went away (\(closure)) before the request ended")), notifyDaemon: false)
        }
        for session in sessions { session.connection.close() }
    }

    /// Ends `requestID` with `outcome` if it hasn't ended and, when `session` is given, it
    /// runs there. Delivers the outcome, acknowledges a completion to the extension after
    /// the host's block has run (if `acknowledge`: the extension waits for it), releases the
    /// request's providers, and tells appexd. Returns whether this call ended it.
    @discardableResult
    private func finish(_ requestID: UUID, _ outcome: ExtensionRequestOutcome, inSession session: UInt64? = nil,
                        acknowledge: Bool = true, notifyDaemon: Bool = true) -> Bool {
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
        if case .completed = outcome, acknowledge {
            hostSession?.acknowledge(requestID)
        } else {
            hostSession?.providers.release(requestID)
        }
        if notifyDaemon { daemon.end(requestID) }
        return true
    }
}
