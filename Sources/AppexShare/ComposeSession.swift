public import AppexItems
public import AppexHost
public import AppexWire
import Foundation
import AppexLocking

/// The host's side of a Share extension's compose sheet: it starts the request, keeps the
/// last sheet the extension sent, and sends the user's doings back.
///
/// ```swift
/// let session = try await ComposeSession.begin(share, items: items)
/// guard var sheet = await session.sheet(within: .seconds(5)) else { … }   // draw it
/// let sent = try session.send(.text("Hello"))
/// sheet = await session.sheet(answering: sent, within: ComposeSession.answerDeadline) ?? sheet
/// try session.send(.post)
/// let outcome = await session.outcome()
/// ```
///
/// A sheet that can't be drawn (malformed, or past the limits of `ComposeSheet`) ends the
/// request: the extension is cancelled and ``failure`` says why.
public final class ComposeSession: Sendable {
    /// How long a host waits for the extension to answer an edit before it says so: Post
    /// stays disabled until the extension answers, since `isContentValid()` hasn't.
    public static let answerDeadline = Duration.seconds(2)

    private struct Waiter {
        /// The sheet awaited answers at least this message…
        var answering: UInt64
        /// …or, when set, is any sheet after this many.
        var afterRevision: Int?
        var continuation: CheckedContinuation<Revision?, Never>

        func isSatisfied(by sheet: ComposeSheet, revision: Int) -> Bool {
            if let afterRevision { return revision > afterRevision }
            return sheet.answering >= answering
        }
    }

    /// A sheet, and how many sheets had come with it.
    private typealias Revision = (sheet: ComposeSheet, revision: Int)

    private struct State {
        var sheet: ComposeSheet?
        /// How many sheets have come.
        var revision = 0
        var failure: String?
        var ended = false
        var waiters: [UUID: Waiter] = [:]
    }

    /// The request the sheet belongs to.
    public let request: InteractiveRequest
    private let state = Locked(State())
    /// The task reading the extension's sheets, which ends after the request does.
    private let reader = Locked<Task<Void, Never>?>(nil)

    private init(request: InteractiveRequest) {
        self.request = request
    }

    /// Starts a request to `share` with `items`, and reads its sheets as they come.
    public static func begin(_ share: NSExtension, items: [NSExtensionItem]) async throws(ErrorInfo) -> ComposeSession {
        let session = ComposeSession(request: try await share.beginInteractiveRequest(withInputItems: items))
        let reading = Task { await session.read() }
        session.reader.withLock { $0 = reading }
        return session
    }

    private func read() async {
        for await message in request.messages {
            let decoded: ComposeMessage
            do throws(ComposeMessageError) {
                decoded = try ComposeMessage(name: message.name, body: message.body)
            } catch {
                fail("the extension sent a compose message that can't be read: \(error)")
                return
            }
            guard case .sheet(let sheet) = decoded else {
                fail("the extension sent \(message.name), which only a host sends")
                return
            }
            received(sheet)
        }
        end()
    }

    // MARK: What the extension sent

    /// The last sheet the extension sent, if any.
    public var sheet: ComposeSheet? { state.withLock { $0.sheet } }

    /// Counts the sheets received, so a host can tell that it has a new one to draw.
    public var revision: Int { state.withLock { $0.revision } }

    /// Whether the request has ended: no sheet will come.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Why the sheet could not be shown, if the extension sent one that can't be drawn.
    public var failure: String? { state.withLock { $0.failure } }

    /// The last sheet if its `answering` is at least `sequence`, or else the first such sheet
    /// to come; nil if none comes `within` that time, or the request ends first.
    public func sheet(answering sequence: UInt64 = 0, within timeout: Duration) async -> ComposeSheet? {
        let id = UUID()
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Revision?? in
                if let sheet = state.sheet, sheet.answering >= sequence { return .some((sheet, state.revision)) }
                if state.ended { return .some(nil) }
                state.waiters[id] = Waiter(answering: sequence, continuation: continuation)
                return nil
            }
            if let ready { return continuation.resume(returning: ready) }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
            }
        }?.sheet
    }

    /// The first sheet after the `revision`th, with its revision, or nil once the request
    /// has ended without one: a host that shows every sheet as it comes, such as the
    /// browser's popup, waits for each in turn.
    public func sheet(after revision: Int) async -> (sheet: ComposeSheet, revision: Int)? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Revision?? in
                if let sheet = state.sheet, state.revision > revision { return .some((sheet, state.revision)) }
                if state.ended { return .some(nil) }
                state.waiters[UUID()] = Waiter(answering: 0, afterRevision: revision, continuation: continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    // MARK: What the user does

    /// Sends the extension what the user did; returns its sequence number, which the sheet
    /// that answers it carries in `answering`.
    @discardableResult
    public func send(_ message: ComposeMessage) throws(ErrorInfo) -> UInt64 {
        try request.send(message.name, body: message.body)
    }

    /// How the request ended, once it has and every sheet before its end has been read.
    public func outcome() async -> ExtensionRequestOutcome {
        let outcome = await request.outcome()
        await reader.withLock { $0 }?.value
        return outcome
    }

    /// Ends the request from the host's side, whatever the extension is doing: for an
    /// extension that doesn't answer.
    public func cancel() {
        request.cancel()
    }

    // MARK: Receiving

    private func received(_ sheet: ComposeSheet) {
        let (ready, revision) = state.withLock { state -> ([CheckedContinuation<Revision?, Never>], Int) in
            state.sheet = sheet
            state.revision += 1
            let satisfied = state.waiters.filter { $0.value.isSatisfied(by: sheet, revision: state.revision) }
            for id in satisfied.keys { state.waiters[id] = nil }
            return (satisfied.values.map(\.continuation), state.revision)
        }
        for continuation in ready { continuation.resume(returning: (sheet, revision)) }
    }

    private func fail(_ reason: String) {
        state.withLock { $0.failure = reason }
        request.cancel()
        end()
    }

    private func end() {
        let waiting = state.withLock { state -> [CheckedContinuation<Revision?, Never>] in
            state.ended = true
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }
}
