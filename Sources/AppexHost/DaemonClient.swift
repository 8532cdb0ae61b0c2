public import AppexCore
import AppexIPC
import AppexLocking
import AppexSystem
public import AppexWire
import Foundation

/// A connection to appexd, for hosts and the CLI: queries, requests and process lists.
///
/// ```swift
/// let daemon = try await DaemonClient.connect()
/// let extensions = try await daemon.query(point: "com.apple.ui-services", items: items)
/// ```
public final class DaemonClient: Sendable {
    /// The daemon's pid, from its Welcome.
    public let daemonPID: Int32
    /// The protocol version agreed in the handshake.
    public let version: UInt32
    let connection: Connection
    private let handlers = Locked<Handlers?>(nil)

    /// What a host does with the daemon's events.
    private struct Handlers {
        let interruption: @Sendable (RequestInterrupted) -> Void
        let sessionIdle: @Sendable (UInt64) -> Void
        let pickFiles: @Sendable (PickFiles) -> Void
        let openURL: @Sendable (OpenURL) -> Void
        let closed: @Sendable (ConnectionClosure) -> Void
    }

    private init(connection: Connection, welcome: Welcome) {
        self.connection = connection
        self.daemonPID = welcome.pid
        self.version = welcome.version
    }

    /// How ``stopDaemon(home:timeout:killing:)`` went.
    public enum DaemonStop: Sendable, Hashable {
        /// No daemon served the home.
        case notRunning
        /// The daemon `pid` ended within the timeout.
        case stopped(pid: Int32)
        /// The daemon `pid` outlived the timeout and was killed (SIGKILL).
        case killed(pid: Int32)
        /// The daemon `pid` was still running when the wait ended.
        case stillRunning(pid: Int32)
    }

    /// Stops the daemon of `home`, if one runs: SIGTERM, then a wait of up to `timeout` for
    /// it to exit, so that nothing it ran writes into the home afterwards. With `killing`,
    /// one that outlives the wait is sent SIGKILL, and waited for 5 s more.
    @discardableResult
    public static func stopDaemon(home: AppexHome, timeout: Duration = .seconds(10), killing: Bool = false) async -> DaemonStop {
        guard let daemon = try? await connect(home: home, role: .cli, startIfNeeded: false) else { return .notRunning }
        let pid = daemon.daemonPID
        daemon.close()
        kill(pid, SIGTERM)
        if await waitForExit(pid, timeout: timeout) { return .stopped(pid: pid) }
        guard killing else { return .stillRunning(pid: pid) }
        kill(pid, SIGKILL)
        return await waitForExit(pid, timeout: .seconds(5)) ? .killed(pid: pid) : .stillRunning(pid: pid)
    }

    private static func waitForExit(_ pid: Int32, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !ProcessTree.hasExited(pid) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Connects to the daemon of `home`, starting it if it isn't running, and shakes hands.
    ///
    /// A daemon killed a moment ago can still take a connection into its listening socket's
    /// backlog as it dies, and the connection is then reset unanswered. Such a close, with no
    /// reason given, is tried again, twice, 100 ms apart: by then the socket refuses, and a
    /// new daemon is started.
    public static func connect(home: AppexHome = .current, role: Hello.Role = .host, startIfNeeded: Bool = true) async throws(ErrorInfo) -> DaemonClient {
        var attempt = 1
        while true {
            switch try await greet(home: home, role: role, startIfNeeded: startIfNeeded) {
            case .welcomed(let client):
                return client
            case .closedUnanswered(let error):
                guard startIfNeeded, attempt < 3 else { throw error }
                attempt += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    private enum Greeted {
        case welcomed(DaemonClient)
        /// The connection closed before any answer to Hello.
        case closedUnanswered(ErrorInfo)
    }

    private static func greet(home: AppexHome, role: Hello.Role, startIfNeeded: Bool) async throws(ErrorInfo) -> Greeted {
        let socket = try DaemonConnector.connect(home: home, startIfNeeded: startIfNeeded)
        let connection = Connection(socket: socket, name: "appexd")
        let greeting = Greeting()
        let client = Locked<DaemonClient?>(nil)
        connection.start { incoming in
            if let client = client.withLock({ $0 }) {
                client.route(incoming)
            } else {
                greeting.receive(incoming.message)
            }
        } onClose: { closure in
            greeting.close(DaemonConnector.unreachable("appexd closed the connection during the handshake: \(closure)", "See \(home.daemonLogURL.path)."))
            client.withLock { $0 }?.closed(closure)
        }
        let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "host").lastPathComponent
        // If this fails, appexd refused the process before reading its Hello (another user,
        // too many connections) and closed: the reader hears appexd's reason, or the close,
        // and settles the greeting with it.
        try? connection.send(.hello(Hello(role: role, name: name)))
        let welcome: Welcome
        do {
            welcome = try await greeting.wait()
        } catch {
            connection.close()
            if greeting.closedUnanswered { return .closedUnanswered(error) }
            throw error
        }
        let connected = DaemonClient(connection: connection, welcome: welcome)
        client.withLock { $0 = connected }
        return .welcomed(connected)
    }

    /// Closes the connection. Requests still running are interrupted with "daemon gone".
    public func close() { connection.close() }

    // MARK: Calls

    /// The enabled extensions of `point` whose activation rules match `items`, in the user's order.
    public func query(point: String, items: ActivationItems) async throws(ErrorInfo) -> [ExtensionSummary] {
        let answer = try await call { .queryExtensions(QueryExtensions(call: $0, point: point, items: items)) }
        guard case .queryResult(let result) = answer.message else { throw unexpected(answer) }
        return result.extensions
    }

    /// Every installed extension of `point`, enabled or not.
    public func extensions(point: String) async throws(ErrorInfo) -> [ExtensionSummary] {
        let answer = try await call { .queryExtensions(QueryExtensions(call: $0, point: point, includeDisabled: true)) }
        guard case .queryResult(let result) = answer.message else { throw unexpected(answer) }
        return result.extensions
    }

    /// The installed extension `identifier`, or nil.
    public func lookUp(_ identifier: String) async throws(ErrorInfo) -> ExtensionSummary? {
        let answer = try await call { .queryExtensions(QueryExtensions(call: $0, identifier: identifier)) }
        guard case .queryResult(let result) = answer.message else { throw unexpected(answer) }
        return result.extensions.first
    }

    /// The live extension processes.
    public func processes() async throws(ErrorInfo) -> [ExtensionProcess] {
        let answer = try await call { .listProcesses(Call($0)) }
        guard case .processList(let list) = answer.message else { throw unexpected(answer) }
        return list.processes
    }

    /// Asks the daemon to start a request; returns its answer and, for a new session, the
    /// socket to the extension.
    func begin(_ requestID: UUID, extensionIdentifier: String) async throws(ErrorInfo) -> (RequestStarted, FileDescriptor?) {
        let answer = try await call { .beginRequest(BeginRequest(call: $0, requestID: requestID, extensionIdentifier: extensionIdentifier)) }
        guard case .requestStarted(let started) = answer.message else { throw unexpected(answer) }
        if started.isNewSession {
            guard let socket = answer.descriptor(at: 0) else {
                throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 7, message: "appexd started a new session without its socket")
            }
            return (started, socket)
        }
        return (started, nil)
    }

    /// Tells the daemon the host has the request's outcome (``notify(_:)``).
    func end(_ requestID: UUID) {
        try? notify(.endRequest(RequestReference(requestID)))
    }

    /// Tells appexd, within ``noticeDelay``, that a request began on a live session
    /// (`RequestBegun`) or ended (`EndRequest`): with the host's next message to it, in the
    /// same write, so that a host making requests one after another wakes appexd about once
    /// a millisecond, not twice a request. appexd needs these only for deadlines and
    /// idleness, and its answers to a request it hasn't heard of yet allow for the wait
    /// (docs/runtime.md). Throws if the connection has closed.
    func notify(_ notice: WireMessage) throws(ConnectionError) {
        try connection.send(notice, within: Self.noticeDelay)
    }

    /// How long a request's notice may wait for the host's next message: longer than a warm
    /// request takes, and far shorter than any limit or grace appexd counts from it.
    static let noticeDelay = DispatchTimeInterval.milliseconds(1)

    private func call(_ message: (UInt64) -> WireMessage) async throws(ErrorInfo) -> IncomingMessage {
        do throws(ConnectionError) {
            return try await connection.call(message)
        } catch {
            if case .failed(let info) = error { throw info }
            throw DaemonConnector.unreachable("appexd could not be reached: \(error)", "It may have stopped; the next connection starts it again.")
        }
    }

    private func unexpected(_ answer: IncomingMessage) -> ErrorInfo {
        ErrorInfo(domain: AppexErrorDomain.runtime, code: 7, message: "appexd answered with \(answer.message.name), which doesn't answer that call")
    }

    // MARK: Events

    /// Sets what to do with the daemon's events: interruptions, its requests to close idle
    /// sessions, an extension's request for files the user picks or for a URL to be opened,
    /// and its going away (at once, if it has gone already). One owner, the request broker, sets them, once.
    func setHandlers(interruption: @escaping @Sendable (RequestInterrupted) -> Void,
                     sessionIdle: @escaping @Sendable (UInt64) -> Void,
                     pickFiles: @escaping @Sendable (PickFiles) -> Void,
                     openURL: @escaping @Sendable (OpenURL) -> Void,
                     closed: @escaping @Sendable (ConnectionClosure) -> Void) {
        handlers.withLock { $0 = Handlers(interruption: interruption, sessionIdle: sessionIdle, pickFiles: pickFiles, openURL: openURL, closed: closed) }
        if let closure = connection.closure { closed(closure) }
    }

    private func route(_ incoming: IncomingMessage) {
        switch incoming.message {
        case .requestInterrupted(let interrupted):
            handlers.withLock { $0 }?.interruption(interrupted)
        case .sessionIdle(let idle):
            handlers.withLock { $0 }?.sessionIdle(idle.sessionID)
        case .pickFiles(let asked):
            if let handlers = handlers.withLock({ $0 }) {
                handlers.pickFiles(asked)
            } else {
                try? connection.send(.pickedFiles(PickedFiles(call: asked.call, reason: "this host runs no request")))
            }
        case .openURL(let asked):
            if let handlers = handlers.withLock({ $0 }) {
                handlers.openURL(asked)
            } else {
                try? connection.send(.openURLResult(OpenURLResult(call: asked.call, opened: false, reason: "this host runs no request")))
            }
        default:
            break
        }
    }

    private func closed(_ closure: ConnectionClosure) {
        handlers.withLock { $0 }?.closed(closure)
    }
}

/// Waits for the daemon's Welcome.
private final class Greeting: Sendable {
    private struct State {
        var result: Result<Welcome, ErrorInfo>?
        var waiter: CheckedContinuation<Result<Welcome, ErrorInfo>, Never>?
        /// The connection closed before any answer came.
        var closedUnanswered = false
    }

    private let state = Locked(State())

    /// Whether the connection closed before any answer came.
    var closedUnanswered: Bool { state.withLock { $0.closedUnanswered } }

    func receive(_ message: WireMessage) {
        if case .failure(let failure) = message { return settle(.failure(failure.error)) }
        do throws(WireError) {
            _ = try Handshake.confirm(message)
            guard case .welcome(let welcome) = message else { return }
            settle(.success(welcome))
        } catch {
            settle(.failure(ErrorInfo(domain: AppexErrorDomain.runtime, code: 7, message: "appexd's answer to Hello can't be used: \(error.message)",
                                      recoverySuggestion: "Restart appexd with this build.")))
        }
    }

    /// The connection closed: `error`, unless an answer came first.
    func close(_ error: ErrorInfo) { settle(.failure(error), closing: true) }

    private func settle(_ result: Result<Welcome, ErrorInfo>, closing: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<Welcome, ErrorInfo>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            state.closedUnanswered = closing
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func wait() async throws(ErrorInfo) -> Welcome {
        let result = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Welcome, ErrorInfo>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }
}
