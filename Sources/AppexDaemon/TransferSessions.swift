import AppexCore
import AppexIPC
import AppexLocking
import AppexRegistry
import AppexSystem
import AppexWire
import Foundation

/// appexd's background sessions (docs/transfers.md): which process is attached to each, and
/// the calls it makes there. A session belongs to the containing app of the process that
/// attaches, so an app and its extensions share their sessions; one process at a time may be
/// attached to one. The attached process hears its tasks' progress and its events as the
/// transfers' process records them (``poll()``).
final class TransferSessions: Sendable {
    /// A process that calls: a client, or an extension appexd launched.
    struct Caller: Sendable {
        /// The client's or extension process's id in the supervisor.
        let id: UInt64
        let name: String
        let pid: Int32
        /// Who it is, found from the kernel, or why it is no installed bundle.
        let bundle: Result<CallingBundle, CallingBundle.Unidentified>
        /// Whether it has hung up, so that appexd will detach it once it reads to the end.
        let hasHungUp: @Sendable () -> Bool
        /// Sends it a message; it is closed if the send fails.
        let send: @Sendable (WireMessage) -> Void
    }

    struct Key: Hashable, Sendable {
        let app: String
        let session: String
    }

    /// A process attached to a session, and what it was last told.
    struct Attachment: Sendable {
        let caller: Caller
        let bundle: CallingBundle
        let group: String
        var told: [UUID: TransferTaskInfo]
        var lastEvent: Int64
        /// Whether it has had its answer and backlog; until then ``poll()`` tells it nothing,
        /// so no update arrives before the answer.
        var answered = false
    }

    let home: AppexHome
    let registry: Registry
    let transfers: TransfersProcess
    let attachments = Locked<[Key: Attachment]>([:])
    /// The newest event each session's app was launched for (``wakeApps()``).
    let woken = Locked<[Key: Int64]>([:])
    /// Yields when a process attaches, so the poll starts.
    let attached = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    init(home: AppexHome, registry: Registry, transfers: TransfersProcess) {
        self.home = home
        self.registry = registry
        self.transfers = transfers
    }

    /// Handles `message`, a background session's message from `caller`.
    func handle(_ message: WireMessage, descriptors: [FileDescriptor], from caller: Caller) {
        switch message {
        case .transferAttach(let attach): attachOrRefuse(attach, caller)
        case .transferCreate(let create): caller.send(answer(create.call) { () throws(ErrorInfo) in try self.create(create, files: descriptors, by: caller) })
        case .transferCancel(let cancel): caller.send(answer(cancel.call) { () throws(ErrorInfo) in try self.cancel(cancel, by: caller) })
        case .transferAcknowledge(let acknowledge): acknowledgeOrReport(acknowledge, caller)
        default: caller.send(.failure(Failure(error: Self.refusal("\(message.name) is no background session's message"))))
        }
    }

    /// `caller` went away: it is attached to nothing any more.
    func detach(_ id: UInt64) {
        attachments.withLock { attachments in attachments = attachments.filter { $0.value.caller.id != id } }
    }

    var hasAttachments: Bool { attachments.withLock { !$0.isEmpty } }

    // MARK: Attaching

    private func attachOrRefuse(_ attach: TransferAttach, _ caller: Caller) {
        do throws(ErrorInfo) {
            let (key, answer, backlog) = try self.attach(attach, caller)
            caller.send(.transferSession(answer))
            for batch in backlog { caller.send(.transferEvents(batch)) }
            attachments.withLock { attachments in
                if attachments[key]?.caller.id == caller.id { attachments[key]?.answered = true }
            }
            attached.continuation.yield()
        } catch {
            caller.send(.failure(Failure(call: attach.call, error: error)))
        }
    }

    private func attach(_ attach: TransferAttach, _ caller: Caller) throws(ErrorInfo) -> (Key, TransferSession, [TransferEvents]) {
        let bundle = try Self.bundle(of: caller)
        let session = attach.sessionIdentifier
        guard !session.isEmpty, session.utf8.count <= 255 else {
            throw Self.refusal("a background session's identifier must be 1 to 255 bytes, not \(session.utf8.count)")
        }
        let container = GroupContainers.answer(GroupContainer(call: 0, groupIdentifier: attach.groupIdentifier), from: .success(bundle), home: home)
        guard container.reason.isEmpty else {
            throw Self.refusal("session \(session)'s sharedContainerIdentifier can't be used: \(container.reason)",
                               recovery: "Name an app group in the \(Entitlements.Key.applicationGroups) entitlement of \(bundle.identifier).")
        }
        // appex-transfers reaches the network for it: a sandboxed extension with no network
        // of its own must not reach it this way either.
        if bundle.isExtension, !bundle.entitlements.networkClient {
            throw Self.refusal("\(bundle.identifier) may not connect to the network (it has no \(Entitlements.Key.networkClient) entitlement), so it has no background sessions",
                               recovery: "Add \(Entitlements.Key.networkClient) to the extension's Entitlements.plist, set to true.")
        }
        let key = Key(app: bundle.appIdentifier, session: session)
        let (tasks, events) = try read { () throws(RegistryError) in try registry.transferSession(appIdentifier: key.app, session: session) }
        let holder = attachments.withLock { attachments -> Caller? in
            // A holder that has hung up is detached once appexd reads to its end; a process
            // that started as it exited must not be refused meanwhile.
            if let other = attachments[key], other.caller.id != caller.id, !other.caller.hasHungUp() { return other.caller }
            attachments[key] = Attachment(caller: caller, bundle: bundle, group: attach.groupIdentifier,
                                          told: Dictionary(tasks.map { ($0.id, TransferTaskInfo($0)) }) { $1 },
                                          lastEvent: events.last?.sequence ?? 0)
            return nil
        }
        if let holder {
            throw ErrorInfo(domain: URLErrorDomain.name, code: URLErrorDomain.backgroundSessionInUseByAnotherProcess,
                            message: "background session \(session) of \(key.app) is in use by \(holder.name) (pid \(holder.pid)); one process at a time may be attached to it",
                            recoverySuggestion: "Invalidate the session in that process, or let it end, then create it here again; or use another identifier.")
        }
        let infos = Dictionary(tasks.map { ($0.id, $0) }) { $1 }
        return (key, TransferSession(call: attach.call, tasks: tasks.map(TransferTaskInfo.init)),
                TransferEvents.batches(of: events.compactMap { Self.info($0, infos[$0.taskID]) }, in: session, backlog: true))
    }

    // MARK: Telling the attached processes

    /// Tells each attached process how its tasks changed and what events came since it was
    /// last told. appexd calls it every poll interval while any process is attached.
    func poll() {
        for (key, attachment) in attachments.withLock({ $0 }) where attachment.answered {
            guard let (tasks, events) = try? registry.transferSession(appIdentifier: key.app, session: key.session) else { continue }
            let changed = tasks.map { ($0.id, TransferTaskInfo($0)) }.filter { attachment.told[$0.0] != $0.1 }
            let fresh = events.filter { $0.sequence > attachment.lastEvent }
            guard !changed.isEmpty || !fresh.isEmpty else { continue }
            let stillAttached = attachments.withLock { attachments -> Bool in
                guard attachments[key]?.caller.id == attachment.caller.id else { return false }
                for (id, info) in changed { attachments[key]?.told[id] = info }
                if let last = fresh.last { attachments[key]?.lastEvent = last.sequence }
                return true
            }
            guard stillAttached else { continue }
            for (_, info) in changed { attachment.caller.send(.transferUpdate(TransferUpdate(sessionIdentifier: key.session, task: info))) }
            if !fresh.isEmpty {
                let byID = Dictionary(tasks.map { ($0.id, $0) }) { $1 }
                for batch in TransferEvents.batches(of: fresh.compactMap { Self.info($0, byID[$0.taskID]) }, in: key.session, backlog: false) {
                    attachment.caller.send(.transferEvents(batch))
                }
            }
        }
    }

    // MARK: Helpers

    /// The attachment of `caller` to `session`, or an error that says it must attach first.
    func attachment(of caller: Caller, to session: String) throws(ErrorInfo) -> (Key, Attachment) {
        let bundle = try Self.bundle(of: caller)
        let key = Key(app: bundle.appIdentifier, session: session)
        guard let attachment = attachments.withLock({ $0[key] }), attachment.caller.id == caller.id else {
            throw Self.refusal("\(caller.name) (pid \(caller.pid)) is not attached to background session \(session) of \(key.app)",
                               recovery: "Create the session (URLSession with its background configuration) in this process first.")
        }
        return (key, attachment)
    }

    static func bundle(of caller: Caller) throws(ErrorInfo) -> CallingBundle {
        switch caller.bundle {
        case .success(let bundle): return bundle
        case .failure(let unidentified):
            throw refusal("\(unidentified.reason), so it has no background sessions", recovery: "Install the app, and run its installed executable.")
        }
    }

    static func refusal(_ message: String, recovery: String = "") -> ErrorInfo {
        AppexErrorDomain.runtimeError(12, message, recovery: recovery)
    }

    func read<T>(_ body: () throws(RegistryError) -> T) throws(ErrorInfo) -> T {
        do {
            return try body()
        } catch {
            throw AppexErrorDomain.runtimeError(2, "the registry could not be read: \(error)")
        }
    }

    func answer(_ call: UInt64, _ body: () throws(ErrorInfo) -> TransferTaskInfo) -> WireMessage {
        do throws(ErrorInfo) {
            return .transferTaskResult(TransferTaskResult(call: call, task: try body()))
        } catch {
            return .failure(Failure(call: call, error: error))
        }
    }

    /// `event` of `task` as its session's process hears it: an upload's answer body read from
    /// appexd's spool into the message, whose path is appexd's own; nil without the task.
    private static func info(_ event: TransferEvent, _ task: TransferTask?) -> TransferEventInfo? {
        guard let task else { return nil }
        guard event.kind == .receivedData else {
            return TransferEventInfo(sequence: UInt64(event.sequence), kind: event.kind.rawValue, location: event.location?.path ?? "", task: TransferTaskInfo(task))
        }
        let body = event.location.flatMap { try? FileHandle(forReadingFrom: $0) }
        defer { try? body?.close() }
        let data = (try? body?.read(upToCount: Int(TransferTask.keptAnswerBytes))) ?? nil
        return TransferEventInfo(sequence: UInt64(event.sequence), kind: event.kind.rawValue, task: TransferTaskInfo(task), data: data ?? Data())
    }
}
