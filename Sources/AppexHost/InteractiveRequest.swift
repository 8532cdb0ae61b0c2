public import AppexItems
import AppexLocking
public import AppexWire
public import Foundation

/// A request whose host and extension talk while it runs, in the point's own messages
/// (`PointMessage` in docs/wire.md): Share's compose sheet, a Today widget's content.
///
/// ```swift
/// let request = try await share.beginInteractiveRequest(withInputItems: items)
/// for await message in request.messages {   // ends when the request does
///     …                                     // draw it; answer with request.send(_:body:)
/// }
/// let outcome = await request.outcome()
/// ```
///
/// A point's host module (AppexShare's sheet host, AppexToday's widget host) drives one of
/// these; host apps rarely use it directly.
public final class InteractiveRequest: Sendable {
    /// The request's identifier.
    public let identifier: UUID
    /// The extension's point messages, in the order it sent them. The stream ends when the
    /// request does, after its last message.
    public let messages: AsyncStream<PointMessage>

    private let broker: RequestBroker
    private let continuation: AsyncStream<PointMessage>.Continuation
    private let sent = Locked<UInt64>(0)
    private let ending = OutcomeBox()

    /// The most messages kept for a reader that falls behind: past it, the oldest are
    /// dropped, so an extension that floods its host can't grow the host's memory.
    public static let bufferLimit = 1024

    init(identifier: UUID, broker: RequestBroker) {
        self.identifier = identifier
        self.broker = broker
        (messages, continuation) = AsyncStream.makeStream(of: PointMessage.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
    }

    /// Sends the extension one of its point's messages, and returns its sequence number.
    /// Throws if the request has ended, or the extension hasn't sent a point message yet,
    /// which would show that it speaks them.
    @discardableResult
    public func send(_ name: String, body: [UInt8]) throws(ErrorInfo) -> UInt64 {
        let sequence = sent.withLock { count in
            count += 1
            return count
        }
        try broker.send(name, body: body, sequence: sequence, for: identifier)
        return sequence
    }

    /// Tells the extension that the host app changed state; its runtime posts Apple's
    /// notification (`NSExtensionHostDidEnterBackground`, …) with the request's context.
    public func post(_ change: HostLifecycle) throws(ErrorInfo) {
        try send(change.rawValue, body: [])
    }

    /// How the request ended, once it has.
    public func outcome() async -> ExtensionRequestOutcome {
        await ending.value()
    }

    /// Cancels the request on the host's behalf: its outcome is `NSUserCancelledError`, and
    /// appexd ends the extension if it has nothing else to do.
    public func cancel() {
        broker.cancel(identifier)
    }

    func receive(_ message: PointMessage) {
        continuation.yield(message)
    }

    func end(_ outcome: ExtensionRequestOutcome) {
        continuation.finish()
        ending.set(outcome)
    }
}

extension NSExtension {
    /// Starts a request with `items` whose extension talks with the host while it runs.
    /// Throws only if appexd refuses to start it.
    public func beginInteractiveRequest(withInputItems items: [NSExtensionItem]) async throws(ErrorInfo) -> InteractiveRequest {
        let broker = try await broker()
        let request = InteractiveRequest(identifier: UUID(), broker: broker)
        _ = try await broker.begin(identifier, items: items, requestID: request.identifier, owner: self,
                                   pointMessages: { request.receive($0) }) { _, outcome in
            request.end(outcome)
        }
        return request
    }
}
