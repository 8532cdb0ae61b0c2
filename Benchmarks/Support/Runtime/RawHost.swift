public import AppexCore
import AppexIPC
import AppexSystem
public import AppexWire
public import Foundation
import Synchronization

/// A host that speaks the wire protocol itself, over `AppexIPC` connections and without
/// AppexHost (no broker, providers or outcome blocks), so the daemon's part of a request and
/// the session's part can be timed apart.
///
/// Its first ``begin(_:)`` launches an extension process of its own; later ones reuse it.
/// Calls are meant to be made one at a time.
public final class RawHost: Sendable {
    private let daemon: Connection
    private let daemonMail = Mailbox()
    private let session = Mutex<Connection?>(nil)
    private let sessionMail = Mailbox()

    private init(daemon: Connection) {
        self.daemon = daemon
    }

    /// Connects to the running daemon of `home` and shakes hands.
    public static func connect(home: AppexHome) async throws -> RawHost {
        let host = RawHost(daemon: Connection(socket: try UnixSocket.connect(to: home.daemonSocketURL.path), name: "appexd"))
        host.daemon.start { [mail = host.daemonMail] incoming in
            mail.put(incoming.message)
        } onClose: { [mail = host.daemonMail] closure in
            mail.put(.goodbye(Goodbye(reason: "\(closure)", graceMilliseconds: 0)))
        }
        // Version 1: every request goes through appexd (BeginRequest), the path this host
        // measures, and appexd ends idle processes itself rather than send SessionIdle.
        try host.daemon.send(.hello(Hello(role: .host, name: "RawHost", maximumVersion: 1)))
        guard case .welcome = await host.daemonMail.next() else { throw BenchmarkFailure("appexd did not welcome the raw host") }
        return host
    }

    /// Ping → Pong with the daemon: one `Connection.call`, the framework's own round trip.
    public func ping() async throws {
        _ = try await daemon.call { .ping(Call($0)) }
    }

    /// BeginRequest → RequestStarted for the benchmark extension. A new session's socket is
    /// kept and greeted, for ``roundTrip(_:)``.
    @discardableResult
    public func begin(_ requestID: UUID) async throws -> RequestStarted {
        let answer = try await daemon.call {
            .beginRequest(BeginRequest(call: $0, requestID: requestID, extensionIdentifier: RuntimeHome.extensionIdentifier))
        }
        guard case .requestStarted(let started) = answer.message else { throw BenchmarkFailure("appexd answered \(answer.message.name)") }
        if started.isNewSession {
            guard let socket = answer.descriptor(at: 0) else { throw BenchmarkFailure("a new session came without its socket") }
            let connection = Connection(socket: socket, name: "session")
            connection.start { [mail = sessionMail] incoming in
                mail.put(incoming.message)
            } onClose: { [mail = sessionMail] closure in
                mail.put(.goodbye(Goodbye(reason: "\(closure)", graceMilliseconds: 0)))
            }
            try connection.send(.hello(Hello(role: .sessionHost, name: "RawHost")))
            session.withLock { $0 = connection }
        }
        return started
    }

    /// EndRequest: the host has the outcome. The daemon doesn't answer it.
    public func end(_ requestID: UUID) throws {
        try daemon.send(.endRequest(RequestReference(requestID)))
    }

    /// ExtensionRequest → CompleteRequest on the session, then RequestAcknowledged: the part
    /// of a request that doesn't involve the daemon. The item is the wire form of
    /// ``BenchItems/text(_:)``. Returns the extension's answer.
    public func roundTrip(_ requestID: UUID) async throws -> BenchReply {
        guard let session = session.withLock({ $0 }) else { throw BenchmarkFailure("no session: call begin first") }
        let text = WireAttachment(providerID: 1, representations: [
            WireRepresentation(typeIdentifier: "public.utf8-plain-text", kind: .item),
            WireRepresentation(typeIdentifier: "public.plain-text", kind: .item),
        ])
        try session.send(.extensionRequest(RequestItems(requestID: requestID, items: [WireItem(attachments: [text])])))
        while true {
            switch await sessionMail.next() {
            case .welcome:
                continue
            case .completeRequest(let answer) where answer.requestID == requestID:
                try session.send(.requestAcknowledged(RequestReference(requestID)))
                return try BenchReply(text: answer.items.first?.attributedContentText?.text ?? "")
            case let other:
                throw BenchmarkFailure("the extension sent \(other.name) instead of completing \(requestID)")
            }
        }
    }

    /// Closes both connections; the extension process ends with its session.
    public func close() {
        session.withLock { $0 }?.close()
        daemon.close()
    }
}

/// Messages that arrived and were not answers to calls, for one reader at a time.
private final class Mailbox: Sendable {
    private struct State {
        var queue: [WireMessage] = []
        var waiter: CheckedContinuation<WireMessage, Never>?
    }

    private let state = Mutex(State())

    func put(_ message: WireMessage) {
        let waiter = state.withLock { state -> CheckedContinuation<WireMessage, Never>? in
            guard let waiter = state.waiter else {
                state.queue.append(message)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: message)
    }

    func next() async -> WireMessage {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> WireMessage? in
                guard !state.queue.isEmpty else {
                    state.waiter = continuation
                    return nil
                }
                return state.queue.removeFirst()
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
