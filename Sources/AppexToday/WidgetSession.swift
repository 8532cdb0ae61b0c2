public import AppexHost
import AppexLocking
import AppexSystem
public import AppexWire
import Foundation

/// The host's side of one Today widget while a Today view shows it: it presents the widget,
/// asks it for updates, tells it what the user does, and reports what it sends.
///
/// ```swift
/// let session = try await WidgetSession.begin(widget, presentation: .init(mode: .compact, width: 360)) { event in
///     redraw(event)                                       // .content, .linkOpened, .ended
/// }
/// let update = await session.update()                     // .newData, .noData or .failed
/// session.setDisplayMode(.expanded)
/// _ = await session.dismiss()
/// ```
///
/// A widget that sends what can't be drawn, or doesn't answer an update within
/// ``defaultUpdateDeadline``, is ended, and ``failure`` says why.
public final class WidgetSession: Sendable {
    /// How long a widget has to answer an update (`widgetPerformUpdate`'s completion
    /// handler), unless its host says otherwise.
    public static let defaultUpdateDeadline = Duration.seconds(10)
    /// How long a widget has from its launch to saying it listens: 10 s, or 60 s in a
    /// sanitized build (Support/sanitize), whose widgets start several times slower.
    public static let readyDeadline = Duration.seconds(Sanitizers.areActive ? 60 : 10)
    /// How long a host waits for a widget to say whether a link opened, the user's answer to
    /// the confirmation included.
    public static let linkDeadline = Duration.seconds(120)
    /// How long a dismissed widget has to complete its request before it is cancelled.
    public static let dismissDeadline = Duration.seconds(2)

    /// What a widget did, as it happens.
    public enum Event: Sendable {
        /// The widget sent this content to draw.
        case content(WidgetContent)
        /// Following a link opened it, or not, and why.
        case linkOpened(String, opened: Bool, reason: String)
        /// The request ended: the widget was dismissed, failed, or its process ended.
        case ended(ExtensionRequestOutcome)
    }

    /// What an update found: the result, with the content the widget sent by then, or why it failed.
    public struct Update: Sendable {
        public var result: NCUpdateResult
        /// The widget's content when it answered, if it has sent any.
        public var content: WidgetContent?
        /// Why the update failed, if the widget didn't say `.failed` itself: it didn't answer, or ended.
        public var failure: String?
    }

    private struct State {
        var content: WidgetContent?
        var ready = false
        var readyWaiters: [CheckedContinuation<Bool, Never>] = []
        var updates: [UInt64: CheckedContinuation<(NCUpdateResult, String?), Never>] = [:]
        /// Who waits to hear whether a link opened: the URL, and the waiter.
        var links: [UUID: (url: String, continuation: CheckedContinuation<(Bool, String), Never>)] = [:]
        var failure: String?
        var ended = false
    }

    /// The request that shows the widget.
    public let request: InteractiveRequest
    /// How long this widget has to answer an update.
    public let updateDeadline: Duration
    private let events: @Sendable (Event) -> Void
    private let state = Locked(State())
    private let reader = Locked<Task<Void, Never>?>(nil)

    private init(request: InteractiveRequest, updateDeadline: Duration, events: @escaping @Sendable (Event) -> Void) {
        self.request = request
        self.updateDeadline = updateDeadline
        self.events = events
    }

    /// Starts the widget's request and presents it; `events` gets what it does, on a
    /// background task. Throws if appexd refuses to start the widget, or the widget doesn't
    /// start listening within ``readyDeadline``. `updateDeadline` is ``defaultUpdateDeadline``
    /// unless a host has reason to wait longer, or less.
    public static func begin(_ widget: NSExtension, presentation: WidgetPresentation, updateDeadline: Duration = defaultUpdateDeadline,
                             events: @escaping @Sendable (Event) -> Void = { _ in }) async throws(ErrorInfo) -> WidgetSession {
        let session = WidgetSession(request: try await widget.beginInteractiveRequest(withInputItems: []), updateDeadline: updateDeadline, events: events)
        let reading = Task { await session.read() }
        session.reader.withLock { $0 = reading }
        guard await session.ready(within: readyDeadline) else {
            session.request.cancel()
            let reason = session.failure
                ?? (session.hasEnded ? "its request ended before it started listening" : "the widget didn't start listening within \(readyDeadline)")
            throw AppexErrorDomain.runtimeError(5, "\(widget.identifier) can't be shown: \(reason)",
                                                recovery: "Check the widget's log, on appexd's standard error, for why it didn't start.")
        }
        try session.send(.present(presentation))
        return session
    }

    // MARK: What the widget sent

    /// The last content the widget sent, if any.
    public var content: WidgetContent? { state.withLock { $0.content } }

    /// Why the widget was ended, if it sent what can't be drawn or didn't answer in time, or
    /// why its request was interrupted (its process crashed, or went over a limit).
    public var failure: String? { state.withLock { $0.failure } }

    /// Whether the request has ended.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    // MARK: What the host does

    /// Asks the widget to update (`widgetPerformUpdate`) and waits for its answer, at most
    /// the session's `updateDeadline`; a widget that doesn't answer by then is ended, and the
    /// update failed.
    public func update() async -> Update {
        let (result, failure) = await withCheckedContinuation { continuation in
            // The waiter is in place before the message goes, so a quick answer finds it.
            let refused = state.withLock { state -> String? in
                if state.ended { return state.failure ?? "the widget's request has ended" }
                do throws(ErrorInfo) {
                    let sequence = try send(.update)
                    state.updates[sequence] = continuation
                    Task { [weak self, updateDeadline] in
                        try? await Task.sleep(for: updateDeadline)
                        self?.missed(update: sequence)
                    }
                    return nil
                } catch {
                    return state.failure ?? "the widget can't be asked: \(error.description)"
                }
            }
            if let refused { continuation.resume(returning: (.failed, refused)) }
        }
        return Update(result: result, content: content, failure: failure)
    }

    /// Tells the widget the user chose `mode`; it answers with new content.
    public func setDisplayMode(_ mode: NCWidgetDisplayMode) {
        _ = try? send(.displayMode(mode))
    }

    /// Tells the widget the Today view entered or left edit mode.
    public func setEditing(_ editing: Bool) {
        _ = try? send(.editing(editing))
    }

    /// Asks the widget to open `url`, a link of its view; returns whether it was opened, and
    /// if not, why, within ``linkDeadline``. The host's `NSExtension.urlOpenConfirmationBlock`
    /// is asked first.
    public func followLink(_ url: String) async -> (opened: Bool, reason: String) {
        let id = UUID()
        return await withCheckedContinuation { (continuation: CheckedContinuation<(Bool, String), Never>) in
            let refused = state.withLock { state -> String? in
                if state.ended { return state.failure ?? "the widget's request has ended" }
                do throws(ErrorInfo) {
                    try send(.followLink(url))
                    state.links[id] = (url, continuation)
                    return nil
                } catch {
                    return "the widget can't be asked: \(error.description)"
                }
            }
            if let refused { return continuation.resume(returning: (false, refused)) }
            Task { [weak self] in
                try? await Task.sleep(for: Self.linkDeadline)
                self?.state.withLock { $0.links.removeValue(forKey: id) }?.continuation
                    .resume(returning: (false, "the widget didn't say within \(Self.linkDeadline) whether \(url) opened"))
            }
        }
    }

    /// Tells the widget the Today view is closing, and waits for its request to end; a widget
    /// that doesn't complete it within ``dismissDeadline`` is cancelled.
    public func dismiss() async -> ExtensionRequestOutcome {
        if (try? send(.dismiss)) == nil { request.cancel() }
        let ending = Task { [request] in
            guard (try? await Task.sleep(for: Self.dismissDeadline)) != nil else { return }
            request.cancel()
        }
        let outcome = await outcome()
        ending.cancel()
        return outcome
    }

    /// How the request ended, once it has and everything the widget sent before has been read.
    public func outcome() async -> ExtensionRequestOutcome {
        let outcome = await request.outcome()
        await reader.withLock { $0 }?.value
        return outcome
    }

    @discardableResult
    private func send(_ message: WidgetMessage) throws(ErrorInfo) -> UInt64 {
        try request.send(message.name, body: message.body)
    }

    // MARK: Receiving

    private func read() async {
        for await message in request.messages {
            let decoded: WidgetMessage
            do throws(WidgetMessageError) {
                decoded = try WidgetMessage(name: message.name, body: message.body)
            } catch {
                fail("the widget sent a message that can't be read: \(error)")
                break
            }
            switch decoded {
            case .ready:
                let waiting = state.withLock { state in
                    state.ready = true
                    defer { state.readyWaiters.removeAll() }
                    return state.readyWaiters
                }
                waiting.forEach { $0.resume(returning: true) }
            case .content(let content):
                state.withLock { $0.content = content }
                events(.content(content))
            case .updated(let result, let answering):
                state.withLock { $0.updates.removeValue(forKey: answering) }?.resume(returning: (result, nil))
            case .linkOpened(let url, let opened, let reason):
                let waiting = state.withLock { state in
                    let answered = state.links.filter { $0.value.url == url }
                    for id in answered.keys { state.links[id] = nil }
                    return answered.values.map(\.continuation)
                }
                waiting.forEach { $0.resume(returning: (opened, reason)) }
                events(.linkOpened(url, opened: opened, reason: reason))
            case .present, .update, .displayMode, .followLink, .editing, .dismiss:
                fail("the widget sent \(message.name), which only a host sends")
            }
            if hasEnded { break }
        }
        let outcome = await request.outcome()
        if case .interrupted(let interruption) = outcome {
            state.withLock { if $0.failure == nil { $0.failure = interruption.message } }
        }
        end()
        events(.ended(outcome))
    }

    private func ready(within timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            let known = state.withLock { state -> Bool? in
                if state.ready { return true }
                if state.ended { return false }
                state.readyWaiters.append(continuation)
                return nil
            }
            if let known { return continuation.resume(returning: known) }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                guard let self else { return }
                let waiting = self.state.withLock { state in
                    defer { state.readyWaiters.removeAll() }
                    return state.readyWaiters
                }
                waiting.forEach { $0.resume(returning: false) }
            }
        }
    }

    private func missed(update sequence: UInt64) {
        guard let waiting = state.withLock({ $0.updates.removeValue(forKey: sequence) }) else { return }
        let reason = "the widget didn't answer its update within \(updateDeadline), so it was ended"
        state.withLock { if $0.failure == nil { $0.failure = reason } }
        waiting.resume(returning: (.failed, reason))
        request.cancel()
    }

    private func fail(_ reason: String) {
        state.withLock { if $0.failure == nil { $0.failure = reason } }
        request.cancel()
    }

    private func end() {
        let (ready, updates, links, reason) = state.withLock { state in
            state.ended = true
            defer {
                state.readyWaiters.removeAll()
                state.updates.removeAll()
                state.links.removeAll()
            }
            return (state.readyWaiters, Array(state.updates.values), state.links.values.map(\.continuation), state.failure ?? "the widget's request ended")
        }
        ready.forEach { $0.resume(returning: false) }
        updates.forEach { $0.resume(returning: (.failed, reason)) }
        links.forEach { $0.resume(returning: (false, reason)) }
    }
}
