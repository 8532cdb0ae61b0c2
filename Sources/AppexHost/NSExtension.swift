public import AppexCore
public import AppexItems
import AppexLocking
public import AppexWire
public import Foundation

/// An installed extension, as a host app uses it: Apple's `NSExtension`.
///
/// ```swift
/// let uppercase = try await NSExtension.extension(withIdentifier: "com.example.notes.uppercase")
/// let item = NSExtensionItem()
/// item.attachments = [NSItemProvider(object: "hello")]
/// switch try await uppercase.request(withInputItems: [item]) {
/// case .completed(let items): print(items)
/// case .cancelled(let error): print("cancelled:", error)
/// case .interrupted(let interruption): print("interrupted:", interruption.message)
/// }
/// ```
///
/// appexd launches the extension for the first request, in its own process, and reuses
/// that process for this host's later requests until it has been idle for its point's
/// grace period. The request blocks run on a background thread, once per request; keep
/// them short, since loads of the same session wait while they run.
public final class NSExtension: Sendable {
    /// The extension's bundle identifier.
    public let identifier: String
    /// What the registry knows of it: point, name, version, containing app, bundle path.
    public let summary: ExtensionSummary

    private struct Blocks {
        var completion: (@Sendable (UUID, [NSExtensionItem]) -> Void)?
        var cancellation: (@Sendable (UUID, any Error) -> Void)?
        var interruption: (@Sendable (UUID) -> Void)?
        var filePicker: FilePicker?
        var urlOpenConfirmation: URLOpenConfirmation?
        var interruptions: [UUID: ExtensionInterruption] = [:]
    }

    let home: AppexHome
    private let blocks = Locked(Blocks())
    /// The broker of this extension's last request, which the next one reuses while its
    /// daemon connection is open, rather than looking it up by home.
    private let lastBroker = Locked<RequestBroker?>(nil)

    private init(summary: ExtensionSummary, home: AppexHome) {
        self.identifier = summary.identifier
        self.summary = summary
        self.home = home
    }

    // MARK: Finding extensions

    /// The installed extension `identifier`, as Apple's `NSExtension(identifier:)`, which
    /// blocks while it asks appexd. Use ``extension(withIdentifier:home:)`` from async code.
    public convenience init(identifier: String) throws {
        let found = try Blocking.wait { () async throws(ErrorInfo) -> ExtensionSummary in
            try await Self.lookUp(identifier, home: .current)
        }
        self.init(summary: found, home: .current)
    }

    /// The installed extension `identifier`. Throws if it isn't installed.
    public static func `extension`(withIdentifier identifier: String, home: AppexHome = .current) async throws -> NSExtension {
        NSExtension(summary: try await lookUp(identifier, home: home), home: home)
    }

    /// The enabled extensions of `point` whose activation rules accept `items`, in the
    /// user's order.
    public static func extensions(ofPoint point: String, matching items: [NSExtensionItem], home: AppexHome = .current) async throws -> [NSExtension] {
        let broker = try await RequestBroker.shared(home: home)
        let found = try await broker.daemon.query(point: point, items: ActivationItems(describing: items))
        return found.map { NSExtension(summary: $0, home: home) }
    }

    /// Every installed extension of `point`, enabled or not, in the user's order: what a
    /// host needs to merge the answers of several queries into that order, or to show the
    /// user's settings.
    public static func installedExtensions(ofPoint point: String, home: AppexHome = .current) async throws(ErrorInfo) -> [NSExtension] {
        let broker = try await RequestBroker.shared(home: home)
        return try await broker.daemon.extensions(point: point).map { NSExtension(summary: $0, home: home) }
    }

    private static func lookUp(_ identifier: String, home: AppexHome) async throws(ErrorInfo) -> ExtensionSummary {
        let broker = try await RequestBroker.shared(home: home)
        guard let found = try await broker.daemon.lookUp(identifier) else {
            throw AppexErrorDomain.runtimeError(1, "no extension \(identifier) is installed", recovery: "`appex list` shows the installed extensions.")
        }
        return found
    }

    // MARK: Requests, in Apple's shape

    /// Runs with the request's identifier and returned items when the extension completes it.
    public var requestCompletionBlock: (@Sendable (UUID, [NSExtensionItem]) -> Void)? {
        get { blocks.withLock { $0.completion } }
        set { blocks.withLock { $0.completion = newValue } }
    }

    /// Runs with the request's identifier and the error when the request is cancelled.
    public var requestCancellationBlock: (@Sendable (UUID, any Error) -> Void)? {
        get { blocks.withLock { $0.cancellation } }
        set { blocks.withLock { $0.cancellation = newValue } }
    }

    /// Runs with the request's identifier when the request ends without an answer; the
    /// reason is ``interruption(forRequestIdentifier:)``.
    public var requestInterruptionBlock: (@Sendable (UUID) -> Void)? {
        get { blocks.withLock { $0.interruption } }
        set { blocks.withLock { $0.interruption = newValue } }
    }

    /// Shows the user a file picker for request `UUID`, as ``FilePickerRequest`` describes,
    /// and returns the files they picked, or nil if they cancelled.
    public typealias FilePicker = @Sendable (UUID, FilePickerRequest) async -> [URL]?

    /// Runs when the extension, entitled to `com.apple.security.files.user-selected.read-only`,
    /// asks for files the user picks: the host's part of what Powerbox does on Apple's
    /// systems. The host opens what it returns read-only, and the extension gets the
    /// descriptors, not the paths. Without it, the extension is told this host offers no picker.
    public var userFilePickerBlock: FilePicker? {
        get { blocks.withLock { $0.filePicker } }
        set { blocks.withLock { $0.filePicker = newValue } }
    }

    /// Asks the user whether to open a URL the extension asks to open, and returns whether
    /// they agreed.
    public typealias URLOpenConfirmation = @Sendable (URLOpenRequest) async -> Bool

    /// Runs when the extension asks to open a URL (`NSExtensionContext.open`) and its point
    /// may: the host asks the user, and appexd launches the app that opens it only if this
    /// returns true. Without it, the extension is told this host opens no URLs.
    public var urlOpenConfirmationBlock: URLOpenConfirmation? {
        get { blocks.withLock { $0.urlOpenConfirmation } }
        set { blocks.withLock { $0.urlOpenConfirmation = newValue } }
    }

    /// Sets ``requestCompletionBlock``, as Objective-C code spells it.
    public func setRequestCompletionBlock(_ block: (@Sendable (UUID, [NSExtensionItem]) -> Void)?) { requestCompletionBlock = block }
    /// Sets ``requestCancellationBlock``.
    public func setRequestCancellationBlock(_ block: (@Sendable (UUID, any Error) -> Void)?) { requestCancellationBlock = block }
    /// Sets ``requestInterruptionBlock``.
    public func setRequestInterruptionBlock(_ block: (@Sendable (UUID) -> Void)?) { requestInterruptionBlock = block }

    /// Why request `identifier` was interrupted, once its interruption block has been called.
    public func interruption(forRequestIdentifier identifier: UUID) -> ExtensionInterruption? {
        blocks.withLock { $0.interruptions[identifier] }
    }

    /// Starts a request with `items` and returns its identifier; its outcome goes to one of
    /// the request blocks. Blocks while appexd starts it; use ``request(withInputItems:)``
    /// from async code.
    public func beginExtensionRequest(withInputItems items: [NSExtensionItem]) throws -> UUID {
        try Blocking.wait { () async throws(ErrorInfo) -> UUID in
            try await self.beginExtensionRequest(withInputItems: items)
        }
    }

    /// Starts a request with `items` and returns its identifier; its outcome goes to one of
    /// the request blocks.
    public func beginExtensionRequest(withInputItems items: [NSExtensionItem]) async throws(ErrorInfo) -> UUID {
        let broker = try await broker()
        return try await broker.begin(identifier, items: items, owner: self) { [self] requestID, outcome in
            deliverToBlocks(requestID, outcome)
        }
    }

    /// Cancels request `identifier`: its cancellation block runs with `NSUserCancelledError`,
    /// and whatever the extension answers later is dropped.
    public func cancelExtensionRequest(withIdentifier identifier: UUID) {
        RequestBroker.existing(home: home)?.cancel(identifier)
    }

    /// The pid of the process serving request `identifier`, or -1 if it isn't running.
    public func pid(forRequestIdentifier identifier: UUID) -> pid_t {
        RequestBroker.existing(home: home)?.pid(of: identifier) ?? -1
    }

    // MARK: Requests, in Swift

    /// Runs a request with `items` and returns how it ended. Throws only if appexd refuses
    /// to start it, such as for an extension that is disabled or no longer installed.
    public func request(withInputItems items: [NSExtensionItem]) async throws(ErrorInfo) -> ExtensionRequestOutcome {
        let broker = try await broker()
        let requestID = UUID()
        let outcome = OutcomeBox()
        let result: Result<ExtensionRequestOutcome, ErrorInfo> = await withTaskCancellationHandler {
            do throws(ErrorInfo) {
                _ = try await broker.begin(identifier, items: items, requestID: requestID, owner: self) { _, result in
                    outcome.set(result)
                }
            } catch {
                return .failure(error)
            }
            // A cancellation that came before the broker had the request found nothing to
            // cancel; the task is still cancelled, so cancel the request now.
            if Task.isCancelled { broker.cancel(requestID) }
            return .success(await outcome.value())
        } onCancel: {
            broker.cancel(requestID)
        }
        return try result.get()
    }

    /// The broker for this extension's home: the last one, while it is connected.
    func broker() async throws(ErrorInfo) -> RequestBroker {
        if let last = lastBroker.withLock({ $0 }), last.isConnected { return last }
        let broker = try await RequestBroker.shared(home: home)
        lastBroker.withLock { $0 = broker }
        return broker
    }

    private func deliverToBlocks(_ requestID: UUID, _ outcome: ExtensionRequestOutcome) {
        let current = blocks.withLock { state in
            if case .interrupted(let interruption) = outcome { state.interruptions[requestID] = interruption }
            return state
        }
        switch outcome {
        case .completed(let items): current.completion?(requestID, items)
        case .cancelled(let error): current.cancellation?(requestID, error)
        case .interrupted: current.interruption?(requestID)
        }
    }
}

/// Holds one request's outcome for everyone who awaits it.
final class OutcomeBox: Sendable {
    private let state = Locked<(outcome: ExtensionRequestOutcome?, waiters: [CheckedContinuation<ExtensionRequestOutcome, Never>])>((nil, []))

    func set(_ outcome: ExtensionRequestOutcome) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// The outcome, once it is set; any number of tasks may wait for it.
    func value() async -> ExtensionRequestOutcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.outcome == nil { state.waiters.append(continuation) }
                return state.outcome
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
