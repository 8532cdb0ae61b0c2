import AppexCore
import AppexIPC
import AppexLocking
import AppexSystem
import AppexWire
import Foundation

/// A host that speaks the wire protocol by hand, at a version the test chooses, for tests
/// of what appexd does when a host sends, or fails to send, what the host library would.
final class RawClient: Sendable {
    let daemon: Connection
    private let daemonMail = Inbox()
    private let sessions = Locked<[UInt64: (connection: Connection, mail: Inbox)]>([:])

    private init(daemon: Connection) {
        self.daemon = daemon
    }

    /// Connects to the running daemon of `home` and shakes hands, offering versions up to `version`.
    static func connect(home: AppexHome, version: UInt32) async throws -> RawClient {
        let client = reading(try UnixSocket.connect(to: home.daemonSocketURL.path))
        try client.daemon.send(.hello(Self.hello(version: version)))
        return try await client.welcomed(at: version)
    }

    /// The Hello a raw client offering versions up to `version` sends.
    static func hello(version: UInt32 = WireVersion.current) -> Hello {
        Hello(role: .host, name: "RawClient", maximumVersion: version)
    }

    /// A raw client over `socket`, a connection to appexd that another process made and sent
    /// ``hello(version:)`` on as it connected: appexd closes a connection that hasn't
    /// greeted within 10 s, which a loaded test process may not manage.
    static func welcomed(over socket: FileDescriptor, version: UInt32 = WireVersion.current) async throws -> RawClient {
        try await reading(socket).welcomed(at: version)
    }

    /// A raw client over `socket`, reading what appexd sends into its mail.
    private static func reading(_ socket: FileDescriptor) -> RawClient {
        let client = RawClient(daemon: Connection(socket: socket, name: "appexd"))
        client.daemon.start { [mail = client.daemonMail] incoming in
            mail.put(incoming.message)
        } onClose: { [mail = client.daemonMail] closure in
            mail.close(closure)
        }
        return client
    }

    /// Waits for appexd's Welcome at `version`.
    private func welcomed(at version: UInt32) async throws -> RawClient {
        guard case .welcome(let welcome)? = await nextFromDaemon(), welcome.version == version else {
            throw WorldError("appexd did not welcome the raw client at version \(version)")
        }
        return self
    }

    /// BeginRequest for `identifier`; a new session is greeted and read.
    func begin(_ requestID: UUID, extension identifier: String) async throws -> RequestStarted {
        let answer = try await daemon.call { .beginRequest(BeginRequest(call: $0, requestID: requestID, extensionIdentifier: identifier)) }
        guard case .requestStarted(let started) = answer.message else { throw WorldError("appexd answered \(answer.message.name)") }
        if started.isNewSession {
            guard let socket = answer.descriptor(at: 0) else { throw WorldError("a new session came without its socket") }
            let connection = Connection(socket: socket, name: "session \(started.sessionID)")
            let mail = Inbox()
            try connection.send(.hello(Hello(role: .sessionHost, name: "RawClient")))
            connection.start { mail.put($0.message) } onClose: { mail.close($0) }
            sessions.withLock { $0[started.sessionID] = (connection, mail) }
        }
        return started
    }

    /// Sends `requestID` with `items` (one of no attachments, unless told) on `session`, and
    /// returns the extension's answer, or nil if none came within `seconds`.
    func request(_ requestID: UUID, on session: UInt64, items: [WireItem] = [WireItem()], within seconds: Double = 60) async throws -> WireMessage? {
        guard let (connection, mail) = sessions.withLock({ $0[session] }) else { throw WorldError("no session \(session)") }
        try connection.send(.extensionRequest(RequestItems(requestID: requestID, items: items)))
        return await mail.next(within: seconds) { message in
            switch message {
            case .completeRequest(let answer): answer.requestID == requestID
            case .cancelledRequest(let answer): answer.requestID == requestID
            default: false
            }
        }
    }

    /// Sends `requestID` straight on the live `session`, as a version-2 host does: tells
    /// appexd with `RequestBegun`, then sends it as ``request(_:on:items:within:)`` does and
    /// returns what that returns.
    func requestStraight(_ requestID: UUID, on session: UInt64, items: [WireItem] = [WireItem()], within seconds: Double = 60) async throws -> WireMessage? {
        try daemon.send(.requestBegun(RequestBegun(requestID: requestID, sessionID: session)))
        return try await request(requestID, on: session, items: items, within: seconds)
    }

    /// Answers the extension's next `LoadRequest` on `session`, for an attachment's content,
    /// with `payload`.
    func answerLoad(on session: UInt64, with payload: Payload) async throws {
        guard let (connection, mail) = sessions.withLock({ $0[session] }) else { throw WorldError("no session \(session)") }
        guard case .loadRequest(let load)? = await mail.next(within: 15, matching: { if case .loadRequest = $0 { true } else { false } }) else {
            throw WorldError("the extension never asked for an attachment's content")
        }
        try connection.send(.loadResult(LoadResult(loadID: load.loadID, typeIdentifier: load.typeIdentifier, payload: payload)))
    }

    /// Sends `RequestAcknowledged` for `requestID` on `session`.
    func acknowledge(_ requestID: UUID, on session: UInt64) throws {
        guard let (connection, _) = sessions.withLock({ $0[session] }) else { throw WorldError("no session \(session)") }
        try connection.send(.requestAcknowledged(RequestReference(requestID)))
    }

    /// The next message from appexd that `matches`, skipping others, or nil after `seconds`
    /// or when the connection has closed.
    func nextFromDaemon(within seconds: Double = 15, matching matches: @Sendable (WireMessage) -> Bool = { _ in true }) async -> WireMessage? {
        await daemonMail.next(within: seconds, matching: matches)
    }

    /// Closes the host's end of `session`.
    func closeSession(_ session: UInt64) {
        sessions.withLock { $0.removeValue(forKey: session) }?.connection.close()
    }

    /// How appexd closed the connection, once it has.
    var daemonClosure: ConnectionClosure? { daemonMail.closure }

    /// Closes every connection.
    func close() {
        for (connection, _) in sessions.withLock({ $0.values }) { connection.close() }
        daemon.close()
    }
}

/// Messages that arrived on one connection, read by polling.
private final class Inbox: Sendable {
    private let state = Locked<(queue: [WireMessage], closure: ConnectionClosure?)>(([], nil))

    func put(_ message: WireMessage) { state.withLock { $0.queue.append(message) } }
    func close(_ closure: ConnectionClosure) { state.withLock { $0.closure = closure } }
    var closure: ConnectionClosure? { state.withLock { $0.closure } }

    func next(within seconds: Double, matching matches: (WireMessage) -> Bool) async -> WireMessage? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let (found, closed) = state.withLock { state -> (WireMessage?, Bool) in
                guard let index = state.queue.firstIndex(where: matches) else { return (nil, state.closure != nil) }
                return (state.queue.remove(at: index), false)
            }
            if let found { return found }
            if closed || ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
