import AppexGroups
import AppexIPC
import AppexItems
import AppexLocking
import AppexSession
import AppexSystem
import AppexWire
import Foundation

/// The extension process's connections: descriptor 3 to appexd and descriptor 4 to the
/// host, and the requests in flight between them.
final class ExtensionRuntime: Sendable {
    /// The descriptor appexd gives the extension for its control channel.
    static let controlDescriptor: Int32 = 3
    /// The descriptor appexd gives the extension for its session with the host.
    static let sessionDescriptor: Int32 = 4

    private struct State {
        /// Completion handlers waiting for the host's acknowledgement, by request.
        var awaitingAcknowledgement: [UUID: @Sendable (Bool) -> Void] = [:]
        /// The requests not answered yet, which the host's point messages may name: their
        /// point channels, and the object of the host's lifecycle notifications.
        var running: [UUID: NSExtensionContext] = [:]
        /// The protocol version agreed in answer to the host's `Hello`.
        var hostVersion: UInt32 = WireVersion.minimum
        var ending = false
        /// Whether the SIGTERM source is watching (``watchForTermination()``).
        var watchesTermination = false
    }

    let bundleIdentifier: String
    let control: Connection
    /// The control channel as this process's link to appexd, which hears what appexd
    /// sends unasked: its background sessions' news.
    let link: DaemonLink
    let session: Connection
    private let loads: PendingLoads
    private let state = Locked(State())
    /// Starts a request on the main thread; set once, before the session starts.
    private let begin: @Sendable (NSExtensionContext) -> Void
    /// Hears, from any thread, that the extension answered a request.
    private let ended: @Sendable (UUID) -> Void
    /// SIGTERM, which appexd sends after its `Goodbye`: it ends the process the same way.
    /// A dispatch source is safe to use from any thread. It starts watching once the first
    /// request has been handed to the main queue (``watchForTermination()``).
    private nonisolated(unsafe) let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())

    init(bundleIdentifier: String, begin: @escaping @Sendable (NSExtensionContext) -> Void,
         ended: @escaping @Sendable (UUID) -> Void) {
        self.bundleIdentifier = bundleIdentifier
        self.begin = begin
        self.ended = ended
        control = Connection(socket: FileDescriptor(owning: Self.controlDescriptor), name: "appexd")
        link = DaemonLink(connection: control)
        session = Connection(socket: FileDescriptor(owning: Self.sessionDescriptor), name: "host")
        loads = PendingLoads(connection: session)
    }

    /// Greets appexd, checks in, and starts serving the host.
    func start() {
        // SIGTERM gives the process its grace too (expiring activities, completion handlers),
        // rather than killing it outright; appexd kills it once the grace is over.
        signal(SIGTERM, SIG_IGN)
        termination.setEventHandler { [self] in end("SIGTERM: appexd ends this extension") }
        control.start { [self] incoming in
            handleControl(incoming.message)
        } onClose: { [self] closure in
            link.end("appexd closed the control channel (\(closure))")
            end("appexd closed the control channel (\(closure))")
        }
        session.start { [self] incoming in
            handleSession(incoming)
        } onClose: { [self] closure in
            loads.close(reason: "the host closed the session (\(closure))")
            end(nil)
        }
        try? control.send(.hello(Hello(role: .extension, name: bundleIdentifier)))
        try? control.send(.checkIn(CheckIn(bundleIdentifier: bundleIdentifier)))
    }

    // MARK: appexd

    private func handleControl(_ message: WireMessage) {
        switch message {
        case .welcome, .transferUpdate, .transferEvents:
            link.deliver(message)
        case .goodbye(let goodbye):
            end(goodbye.reason.isEmpty ? nil : "appexd ends this extension: \(goodbye.reason)",
                grace: .milliseconds(Int64(clamping: goodbye.graceMilliseconds)))
        case .failure(let failure):
            Self.log("appexd reported: \(failure.error)")
        default:
            Self.log("appexd sent \(message.name), which an extension never receives; ignored")
        }
    }

    /// Asks appexd to open `url` for the request `requestID`, and reports whether it did,
    /// and if not, why.
    func open(_ url: URL, for requestID: UUID, completion: @escaping @Sendable (OpenURLAnswer) -> Void) {
        Task {
            do throws(ConnectionError) {
                let answer = try await control.call { .openURL(OpenURL(call: $0, url: url.absoluteString, requestID: requestID)) }
                guard case .openURLResult(let result) = answer.message else {
                    return completion(OpenURLAnswer(opened: false, reason: "appexd answered \(answer.message.name)"))
                }
                if !result.opened { Self.log("open(\(url.absoluteString)) was refused: \(result.reason)") }
                completion(OpenURLAnswer(opened: result.opened, reason: result.reason))
            } catch {
                Self.log("open(\(url.absoluteString)) failed: \(error)")
                completion(OpenURLAnswer(opened: false, reason: "appexd could not be asked: \(error)"))
            }
        }
    }

    // MARK: The host

    private func handleSession(_ incoming: IncomingMessage) {
        switch incoming.message {
        case .hello:
            let version: UInt32
            do throws(WireError) {
                version = try Handshake.agree(to: incoming.message)
            } catch {
                Self.log("the host failed the handshake (\(error.message)); closing the session")
                try? session.send(.failure(Failure(error: ErrorInfo(domain: AppexErrorDomain.runtime, code: 7, message: error.message))))
                session.close()
                return
            }
            state.withLock { $0.hostVersion = version }
            try? session.send(.welcome(Welcome(version: version, pid: getpid(), name: bundleIdentifier)))
        case .extensionRequest(let request):
            let items = loads.items(request.items, requestID: request.requestID)
            let context = NSExtensionContext(requestIdentifier: request.requestID, inputItems: items, runtime: self)
            state.withLock { $0.running[request.requestID] = context }
            begin(context)
            watchForTermination()
        case .pointMessage(let message) where HostLifecycle(pointMessage: message) != nil:
            guard let context = state.withLock({ $0.running[message.requestID] }) else {
                return Self.log("the host sent \(message.name) for request \(message.requestID), which is not running here; dropped")
            }
            // Posted from an operation of the main operation queue: Foundation on Linux runs an
            // observer's block for `queue: .main` at once only there, and posting on the main
            // thread outside one waits on the main queue for ever.
            OperationQueue.main.addOperation {
                NotificationCenter.default.post(name: NSNotification.Name(message.name), object: context)
            }
        case .pointMessage(let message):
            guard let channel = state.withLock({ $0.running[message.requestID]?.pointChannel }) else {
                return Self.log("the host sent \(message.name) for request \(message.requestID), which is not running here; dropped")
            }
            channel.receive(message)
        case .loadResult(let result):
            if !loads.receive(result, in: incoming) { Self.log("the host answered load \(result.loadID), which no one asked for; ignored") }
        case .requestAcknowledged(let reference):
            let handler = state.withLock { $0.awaitingAcknowledgement.removeValue(forKey: reference.requestID) }
            if let handler { DispatchQueue.main.async { handler(false) } }
        default:
            Self.log("the host sent \(incoming.message.name), which an extension never receives; closing the session")
            session.close()
        }
    }

    /// Starts the SIGTERM source, once. Its first `resume()` starts libdispatch's manager
    /// thread and registers the signal, 0.15 ms of a forked extension's start
    /// (BENCHMARKS.md), so it is done here, on the session's thread while the main queue
    /// runs `beginRequest`, not on the way to it. Until then SIGTERM is ignored: appexd sends
    /// it only after `Goodbye`, which ends the process by itself, and kills a process that
    /// outlives its grace.
    private func watchForTermination() {
        let first = state.withLock { state in
            defer { state.watchesTermination = true }
            return !state.watchesTermination
        }
        if first { termination.resume() }
    }

    /// The protocol version agreed with the host.
    var hostVersion: UInt32 { state.withLock { $0.hostVersion } }

    /// Whether the host speaks point messages.
    var hostSpeaksPointMessages: Bool { hostVersion >= WireVersion.pointMessages }

    /// Forgets a request the extension has answered: the host's later point messages about it are dropped.
    func answered(_ requestID: UUID) {
        state.withLock { $0.running.removeValue(forKey: requestID) }?.pointChannel.close()
        ended(requestID)
    }

    /// Sends the request's items, then runs `completionHandler` once the host acknowledges them.
    func complete(_ requestID: UUID, items: [NSExtensionItem], completionHandler: (@Sendable (Bool) -> Void)?) {
        if let wire = MaterializedItems.wireItemsWithoutLoading(items) {
            send(requestID, wire, descriptors: [], completionHandler: completionHandler)
            return
        }
        Task {
            var slots = DescriptorSlots()
            let wire: [WireItem]
            do throws(ErrorInfo) {
                wire = try await MaterializedItems.wireItems(items, slots: &slots)
            } catch {
                Self.log("the returned items could not be sent, so the request is cancelled instead: \(error)")
                cancel(requestID, error: error)
                if let completionHandler { DispatchQueue.main.async { completionHandler(true) } }
                return
            }
            send(requestID, wire, descriptors: slots.descriptors, completionHandler: completionHandler)
        }
    }

    private func send(_ requestID: UUID, _ wire: [WireItem], descriptors: [FileDescriptor], completionHandler: (@Sendable (Bool) -> Void)?) {
        // The host may read the group as soon as the request ends.
        FoundationGroupSuites.flush()
        if let completionHandler {
            state.withLock { $0.awaitingAcknowledgement[requestID] = completionHandler }
        }
        do throws(ConnectionError) {
            let answer = RequestItems(requestID: requestID, items: wire, withoutAcknowledgement: completionHandler == nil)
            try session.send(.completeRequest(answer), descriptors: descriptors)
        } catch {
            Self.log("the returned items could not reach the host: \(error)")
            expire(requestID)
        }
    }

    /// Sends the cancellation of `requestID`.
    func cancel(_ requestID: UUID, error: ErrorInfo) {
        FoundationGroupSuites.flush()
        do throws(ConnectionError) {
            try session.send(.cancelledRequest(CancelledRequest(requestID: requestID, error: error)))
        } catch {
            Self.log("the cancellation could not reach the host: \(error)")
        }
    }

    private func expire(_ requestID: UUID) {
        let handler = state.withLock { $0.awaitingAcknowledgement.removeValue(forKey: requestID) }
        if let handler { DispatchQueue.main.async { handler(true) } }
    }

    // MARK: Ending

    /// Ends the process: expiring activities are told to stop and have most of `grace` to
    /// return (``ExpiringActivities``), completion handlers still waiting run with `expired`
    /// true on the main queue, then the process exits with status 0.
    private func end(_ reason: String?, grace: Duration = ExtensionRuntime.terminationGrace) {
        let waiting = state.withLock { state -> [@Sendable (Bool) -> Void]? in
            guard !state.ending else { return nil }
            state.ending = true
            defer { state.awaitingAcknowledgement.removeAll() }
            return Array(state.awaitingAcknowledgement.values)
        }
        guard let waiting else { return }
        if let reason { Self.log(reason) }
        // Off the main queue, which an activity's work may need while it stops.
        Thread.detachNewThread {
            let unfinished = ExpiringActivities.shared.expire(within: grace * 3 / 4)
            if unfinished > 0 { Self.log("\(unfinished) expiring activit\(unfinished == 1 ? "y was" : "ies were") still running when the process ended") }
            DispatchQueue.main.async {
                for handler in waiting { handler(true) }
                FoundationGroupSuites.flush()
                exit(0)
            }
        }
    }

    /// How long appexd lets the process end by itself, as it said at launch; 1 s if it didn't.
    static let terminationGrace: Duration = ProcessInfo.processInfo.environment[ExtensionEnvironment.terminationGrace]
        .flatMap(Int64.init).map { .milliseconds($0) } ?? .seconds(1)

    /// Writes one line to standard error, which appexd keeps in its log.
    static func log(_ message: String) {
        ExtensionLog.write(message)
    }
}
