import AppexIPC
import AppexLocking
public import AppexWire
import Foundation

/// One request's share of its session for the point's own messages (`PointMessage` in
/// docs/wire.md): what the extension sends the host, and the host's messages, delivered in
/// order on the main queue to the handler that the point's module sets.
///
/// Extension code doesn't use this directly: a point's module (AppexShare's compose
/// service, AppexToday's widget) speaks for it.
public final class PointChannel: Sendable {
    /// Runs on the main queue with each message the host sends about the request.
    public typealias Handler = @MainActor @Sendable (PointMessage) -> Void

    private struct State {
        var sent: UInt64 = 0
        var handler: Handler?
        /// Messages that came before a handler was set, to deliver to it.
        var pending: [PointMessage] = []
        /// Whether the request has been answered, which ends its conversation.
        var closed = false
    }

    /// The most messages kept for a handler not set yet: a host that floods a request no one
    /// listens to loses the excess, logged, not the process's memory.
    static let pendingLimit = 256

    private let requestID: UUID
    private let runtime: ExtensionRuntime
    private let state = Locked(State())

    init(requestID: UUID, runtime: ExtensionRuntime) {
        self.requestID = requestID
        self.runtime = runtime
    }

    /// Whether the host speaks point messages (protocol version 5).
    public var isAvailable: Bool { runtime.hostSpeaksPointMessages }

    /// Whether the request is still unanswered, so that its messages still mean something.
    public var isOpen: Bool { state.withLock { !$0.closed } }

    /// Sends the host one of the point's messages about this request, and returns its sequence
    /// number. Throws if the host doesn't speak point messages or the session has closed.
    @discardableResult
    public func send(_ name: String, body: [UInt8]) throws(PointChannelError) -> UInt64 {
        guard runtime.hostSpeaksPointMessages else {
            throw PointChannelError("the host speaks protocol version \(runtime.hostVersion), before point messages (version \(WireVersion.pointMessages)): it can't show this point's interface")
        }
        let sequence = state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            state.sent += 1
            return state.sent
        }
        guard let sequence else { throw PointChannelError("request \(requestID) has been answered, so \(name) would reach no one") }
        do throws(ConnectionError) {
            try runtime.session.send(.pointMessage(PointMessage(requestID: requestID, sequence: sequence, name: name, body: body)))
        } catch {
            throw PointChannelError("\(name) could not reach the host: \(error)")
        }
        return sequence
    }

    /// Sets the handler of the host's messages; those that came before it run first, in order.
    public func setHandler(_ handler: @escaping Handler) {
        let pending = state.withLock { state in
            state.handler = handler
            defer { state.pending.removeAll() }
            return state.pending
        }
        guard !pending.isEmpty else { return }
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                for message in pending { handler(message) }
            }
        }
    }

    /// Drops the handler once the request is answered, with whatever it holds (the point's
    /// controller, which holds the context that holds this channel).
    func close() {
        state.withLock { state in
            state.closed = true
            state.handler = nil
            state.pending.removeAll()
        }
    }

    /// Delivers a message from the host.
    func receive(_ message: PointMessage) {
        let handler = state.withLock { state -> Handler? in
            guard let handler = state.handler else {
                if state.pending.count < Self.pendingLimit {
                    state.pending.append(message)
                } else {
                    ExtensionRuntime.log("the host sent \(message.name) for request \(requestID), which has no handler yet and \(Self.pendingLimit) waiting; dropped")
                }
                return nil
            }
            return handler
        }
        guard let handler else { return }
        DispatchQueue.main.async {
            MainActor.assumeIsolated { handler(message) }
        }
    }
}

/// Why a point message could not be sent.
public struct PointChannelError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
