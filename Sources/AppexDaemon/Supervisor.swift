import AppexCore
import AppexIPC
import AppexLocking
import AppexRegistry
import AppexSandbox
import AppexSystem
import AppexWire
import Foundation

/// Launches extensions, watches them, enforces their point's policy, and tells hosts how
/// their requests ended when an extension can't.
///
/// State lives behind one lock; every method decides under the lock and does its I/O
/// (signals, sends) after releasing it. The extension's control channel is handled in
/// Supervisor+ControlChannel.swift, each process's policy check is
/// `ExtensionProcessRecord.check`, and its launch is `ExtensionLaunch`.
final class Supervisor: Sendable {
    struct State: Sendable {
        var processes: [UInt64: ExtensionProcessRecord] = [:]
        var clients: [UInt64: ClientRecord] = [:]
        var nextID: UInt64 = 1
        var shuttingDown = false
    }

    let configuration: DaemonConfiguration
    let registry: Registry
    /// The cgroups that cap each process's memory and processes.
    let cgroups = ExtensionCgroups()
    /// Everything that changes; see above.
    let state = Locked(State())
    /// Wakes the tick loop when a process appears.
    let wake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// The background sessions and the processes attached to them.
    let transferSessions: TransferSessions
    /// The descriptors clients' and extensions' unfinished frames may hold (``ClientLimits``).
    let descriptors: DescriptorBudget
    /// The lowest descriptor number a new connection may have: one at or past it would leave
    /// appexd fewer than its reserve, since the kernel hands out the lowest free number.
    let descriptorCeiling: Int32
    /// Starts extensions' processes: forked from the launcher, or spawned.
    let starter: ExtensionStarter

    init(configuration: DaemonConfiguration, registry: Registry) {
        self.configuration = configuration
        self.registry = registry
        let limits = configuration.clientLimits
        let openFiles = Int(min(OpenFileLimit.current, UInt64(Int32.max)))
        descriptors = DescriptorBudget(perPeer: limits.descriptorsPerProcess, total: limits.descriptorsInFlight(openFileLimit: openFiles))
        descriptorCeiling = Int32(openFiles - limits.reservedDescriptors(openFileLimit: openFiles))
        transferSessions = TransferSessions(home: configuration.home, registry: registry,
                                            transfers: TransfersProcess(home: configuration.home, registry: registry, logLimit: configuration.logLimit))
        starter = ExtensionStarter(program: configuration.launcher, appexKit: configuration.appexKit, sandbox: configuration.sandbox)
        starter.prepare()
    }

    func nextID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    // MARK: Clients

    /// A host went away: its extension processes have no one left to serve.
    func remove(client id: UInt64) {
        let orphans = state.withLock { state -> [UInt64] in
            state.clients[id] = nil
            let sessions = state.processes.values.filter { $0.hostID == id }.map(\.sessionID)
            for session in sessions {
                guard var record = state.processes[session] else { continue }
                record.hostLeftUnanswered = record.requests.count
                record.requests.removeAll()
                state.processes[session] = record
            }
            return sessions
        }
        transferSessions.detach(id)
        for session in orphans { kill(session: session) }
    }

    /// Client `id` finished its handshake, agreeing on protocol `version`.
    func greeted(client id: UInt64, version: UInt32) {
        state.withLock { $0.clients[id]?.version = version }
    }

    var clientCount: Int { state.withLock { $0.clients.count } }

    // MARK: Requests

    /// Starts `request` for `client`: reuses the client's live process for the extension or
    /// launches one. Returns the answer, and the host's end of a new session socket.
    func begin(_ request: BeginRequest, for client: ClientRecord) throws(ErrorInfo) -> (RequestStarted, FileDescriptor?) {
        let identifier = request.extensionIdentifier
        let reused = try state.withLock { state throws(ErrorInfo) -> RequestStarted? in
            guard !state.shuttingDown else { throw Self.shuttingDownError }
            guard let sessionID = state.processes.values.first(where: {
                $0.hostID == client.id && $0.installed.identifier.lowercased() == identifier.lowercased()
                    && !$0.isEnding && !$0.hostWasAskedToClose
            })?.sessionID else { return nil }
            state.processes[sessionID]!.requests[request.requestID] = deadline(state.processes[sessionID]!.policy)
            state.processes[sessionID]!.idleSince = nil
            return RequestStarted(call: request.call, requestID: request.requestID, sessionID: sessionID,
                                  pid: state.processes[sessionID]!.process.processID, isNewSession: false)
        }
        if let reused { return (reused, nil) }

        let (installed, point) = try registry.launchable(identifier)
        let policy = configuration.policy(for: point)
        let waitsForDebugger = installed.debuggerWait != nil
        if installed.debuggerWait == .once { try? registry.takeDebuggerWait(extension: installed.identifier) }
        let (hostEnd, extensionSession) = try socketPair()
        let (daemonEnd, extensionControl) = try socketPair()
        let output = try outputPipe()
        let process: ProcessDescriptor
        do {
            let launch = try ExtensionLaunch.make(installed, policy: policy, home: configuration.home, sandbox: configuration.sandbox,
                                                  control: extensionControl, session: extensionSession, output: output.writing,
                                                  terminationGrace: configuration.terminationGrace, waitsForDebugger: waitsForDebugger,
                                                  typeDeclarations: try? registry.typeDeclarationsJSON(preferring: installed.appIdentifier,
                                                                                                                limit: ExtensionLaunch.typeDeclarationsLimit))
            // A process that waits for a debugger runs its own executable, for the debugger to find.
            process = try starter.start(launch, spawning: waitsForDebugger)
        } catch {
            output.close()
            throw ExtensionLaunch.failure(installed, error)
        }
        extensionControl.close()
        extensionSession.close()
        output.writing.close()
        output.forward(as: "\(installed.identifier)[\(process.processID)]")
        let missing = configuration.sandbox.missingLayers
        if configuration.sandbox.isOff {
            DaemonLog.write(line: "appexd: \(Sandbox.offSetting.name)=\(Sandbox.offSetting.value): \(installed.identifier) runs with no sandbox at all")
        } else if !missing.isEmpty {
            DaemonLog.write(line: "appexd: \(installed.identifier) runs without the sandbox layers this kernel lacks: \(missing.map(\.description).joined(separator: "; "))")
        }

        let sessionID = nextID()
        let control = Connection(socket: daemonEnd, name: "\(installed.identifier)[\(process.processID)]",
                                 untrusted: UntrustedPeer(frameDeadline: configuration.clientLimits.frameDeadline,
                                                          descriptors: descriptors.account(for: process.processID)))
        // A process stopped for a debugger has no deadlines: a person is at work.
        let launchDeadline = waitsForDebugger ? Self.debuggerDeadline : policy.launchDeadline
        var record = ExtensionProcessRecord(
            sessionID: sessionID, installed: installed, policy: policy, hostID: client.id, process: process,
            control: control, startedAt: .now, phase: .launching(deadline: .now + launchDeadline)
        )
        record.requests[request.requestID] = waitsForDebugger ? nil : deadline(policy)
        if waitsForDebugger { announceDebuggerWait(record) }
        record.isBeingConfined = cgroups.isAvailable
        let admitted = state.withLock { state in
            if !state.shuttingDown { state.processes[sessionID] = record }
            return !state.shuttingDown
        }
        guard admitted else {
            // Shutdown began while this one launched, so it missed the goodbyes: end it here.
            process.kill()
            process.waitForExit(timeoutMilliseconds: -1)
            _ = process.reap()
            throw Self.shuttingDownError
        }
        let controlClosed = DispatchSemaphore(value: 0)
        control.start(reading: .eventLoop) { [weak self] incoming in
            self?.handleControl(incoming, session: sessionID)
        } onClose: { [weak self] closure in
            defer { controlClosed.signal() }
            guard case .protocolError(let error) = closure else { return }
            self?.kill(session: sessionID) { Interruption(kind: .protocolError, message: "\($0.label) sent a malformed frame on its daemon channel: \(error)") }
        }
        watchExit(of: process, session: sessionID, controlClosed: controlClosed)
        if record.isBeingConfined { confine(record) }
        wake.continuation.yield()
        return (RequestStarted(call: request.call, requestID: request.requestID, sessionID: sessionID,
                               pid: process.processID, isNewSession: true), hostEnd)
    }

    /// Moves the process of `record` into cgroups of its own, in the background.
    /// ``exited(session:)`` waits for a move still under way, so the cgroups are always
    /// recorded, read for what the kernel refused or ended, and removed.
    private func confine(_ record: ExtensionProcessRecord) {
        cgroups.confineInBackground(record.process, memoryLimit: record.policy.memoryLimit,
                                    processLimit: record.policy.processLimit, label: record.label) { [weak self] cgroups in
            let kept = self?.state.withLock { state in
                guard state.processes[record.sessionID] != nil else { return false }
                state.processes[record.sessionID]!.cgroups = cgroups
                state.processes[record.sessionID]!.isBeingConfined = false
                return true
            } ?? false
            if !kept { cgroups?.remove() }
        }
    }

    private static let shuttingDownError = ErrorInfo(
        domain: AppexErrorDomain.runtime, code: 6, message: "appexd is shutting down",
        recoverySuggestion: "Try again: the next connection starts a new daemon.")

    /// Ends `session`'s process now. `reason` says why, for its host, unless a reason is
    /// already recorded.
    func kill(session: UInt64, reason: ((ExtensionProcessRecord) -> Interruption)? = nil) {
        let process = state.withLock { state -> ProcessDescriptor? in
            guard var record = state.processes[session] else { return nil }
            if record.endReason == nil, let reason { record.endReason = reason(record) }
            record.phase = .ending(killAt: .now)
            state.processes[session] = record
            return record.process
        }
        process?.kill()
    }

    /// The host sent `begun.requestID` straight on its session `begun.sessionID`: the
    /// process is busy again, and the request's deadline runs from now. A session that has
    /// ended is ignored, since its exit report, which names the session, covers the request.
    /// Returns false if the session is another client's. An ask of the process that waits
    /// for this request (``whenRunning(_:in:_:)``) goes on.
    func begun(_ begun: RequestBegun, for client: UInt64) -> Bool {
        let (isClients, awaited) = state.withLock { state -> (Bool, AwaitedRequest?) in
            guard var record = state.processes[begun.sessionID] else { return (true, nil) }
            guard record.hostID == client else { return (false, nil) }
            record.requests[begun.requestID] = deadline(record.policy)
            record.idleSince = nil
            record.idleNoticeSentAt = nil
            let awaited = record.awaitedRequest?.requestID == begun.requestID ? record.awaitedRequest.take() : nil
            state.processes[begun.sessionID] = record
            return (true, awaited)
        }
        awaited?.resume(true)
        return isClients
    }

    /// The host has its outcome, or gave up the request. False, with nothing changed, if the
    /// request runs for another client; true if it is the client's, or runs no longer.
    func end(_ requestID: UUID, for client: UInt64) -> Bool {
        state.withLock { state in
            guard let sessionID = state.processes.values.first(where: { $0.hostID == client && $0.requests[requestID] != nil })?.sessionID else {
                return !state.processes.values.contains { $0.requests[requestID] != nil }
            }
            state.processes[sessionID]!.requests[requestID] = nil
            if state.processes[sessionID]!.requests.isEmpty { state.processes[sessionID]!.idleSince = .now }
            return true
        }
    }

    /// The host closed its session with `session`'s process: no one is left for it to serve,
    /// so it ends rather than serve the host's next request on a session that is gone.
    ///
    /// A process with no request is told goodbye, as an idle one is: the host closes an idle
    /// session when appexd asks (`SessionIdle`). One with requests is killed at once. The host
    /// usually closes such a session because the process ended, and this arrives before the
    /// exit is reported: the requests and the reason already recorded stay, so the host still
    /// learns why (a deadline, the memory limit, the signal).
    ///
    /// False, with nothing changed, if the session is another client's; true if it is the
    /// client's, or has ended.
    func closeSession(_ session: UInt64, for client: UInt64) -> Bool {
        enum Closing { case ended, idle(ExtensionProcessRecord), busy, anotherClients }
        let closing = state.withLock { state -> Closing in
            guard var record = state.processes[session] else { return .ended }
            guard record.hostID == client else { return .anotherClients }
            guard !record.isEnding, record.requests.isEmpty else { return .busy }
            record.phase = .ending(killAt: .now + configuration.terminationGrace)
            state.processes[session] = record
            return .idle(record)
        }
        switch closing {
        case .ended: return true
        case .idle(let record): sayGoodbye(to: record, reason: "idle")
        case .busy: kill(session: session)
        case .anotherClients: return false
        }
        return true
    }

    /// Tells the process of `record` to end: `Goodbye` with the termination grace, then
    /// SIGTERM. The tick kills it if it is still alive when the grace is over.
    private func sayGoodbye(to record: ExtensionProcessRecord, reason: String) {
        try? record.control.send(.goodbye(Goodbye(reason: reason, graceMilliseconds: UInt64(configuration.terminationGrace.milliseconds))))
        record.process.send(signal: SIGTERM)
    }

    /// The pid serving `requestID` for `client`, if the request is live.
    func pid(of requestID: UUID, for client: UInt64) -> Int32? {
        state.withLock { state in
            state.processes.values.first { $0.hostID == client && $0.requests[requestID] != nil }?.process.processID
        }
    }

    private func deadline(_ policy: ExtensionPointPolicy) -> ContinuousClock.Instant? {
        policy.requestDeadline.map { .now + $0 }
    }

    private func socketPair() throws(ErrorInfo) -> (FileDescriptor, FileDescriptor) {
        do {
            return try UnixSocket.pair()
        } catch {
            throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 3, message: "appexd could not make a socket: \(error)")
        }
    }

    private func outputPipe() throws(ErrorInfo) -> ExtensionOutput {
        do {
            return try ExtensionOutput()
        } catch {
            throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 3, message: "appexd could not make a pipe for the extension's output: \(error)")
        }
    }

    // MARK: Watching processes

    /// Reports the exit of `process` once the process has exited and its control channel has
    /// been read to the end, so that what it said last, such as why it could not start, is
    /// known before its host is told. The channel ends with the process, or within a second
    /// if a child of the process still holds it.
    private func watchExit(of process: ProcessDescriptor, session: UInt64, controlClosed: DispatchSemaphore) {
        let thread = Thread { [weak self] in
            process.waitForExit(timeoutMilliseconds: -1)
            _ = controlClosed.wait(timeout: .now() + .seconds(1))
            self?.exited(session: session)
        }
        thread.name = "appex-watch-\(process.processID)"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// The process of `session` has exited: reap it, and tell its host about any request it
    /// left unanswered.
    func exited(session: UInt64) {
        if state.withLock({ $0.processes[session]?.isBeingConfined ?? false }) {
            cgroups.waitForBackgroundConfinements()
        }
        guard var record = state.withLock({ $0.processes.removeValue(forKey: session) }) else { return }
        transferSessions.detach(session)
        let status = record.process.reap()
        record.control.close()
        if let cgroups = record.cgroups {
            if record.endReason == nil, cgroups.oomKills > 0 {
                let limit = UInt64(MemoryLimits.hardLimit(for: record.policy.memoryLimit))
                record.endReason = Interruption(
                    kind: .memoryLimit, limit: limit, measured: cgroups.peakBytes.map(MemoryLimits.counted) ?? limit,
                    message: "\(record.label) went over its hard memory limit of \(limit / 1_048_576) MiB\(MemoryLimits.allowanceNote), and the kernel ended it")
            }
            let refused = cgroups.processLimitHits
            if refused > 0 {
                DaemonLog.write(line: "appexd: \(record.label) reached its limit of \(record.policy.processLimit) processes and threads; the kernel refused \(refused) forks or threads")
            }
            cgroups.remove()
        }
        let reason = record.interruption(exitStatus: status)
        // An end the extension didn't choose goes in the log, where `appex log ID` finds it
        // beside what the extension wrote last.
        if let unanswered = record.hostLeftUnanswered, status == .signaled(SIGKILL, coreDumped: false) || status == .exited(0) {
            // Killed for its host's going, or ended by itself as its session closed: no crash,
            // and said only if requests were cut short.
            if unanswered > 0 {
                DaemonLog.write(line: "appexd: \(record.label) was ended because its host went away with \(unanswered) request\(unanswered == 1 ? "" : "s") unanswered (pid \(record.process.processID))")
            }
        } else if record.endedAbnormally(exitStatus: status) {
            DaemonLog.write(line: "appexd: \(reason.message) (pid \(record.process.processID))")
        }
        // A host that sends requests straight on its sessions learns of every session's end,
        // since it may have sent one appexd has not heard of yet.
        guard let host = state.withLock({ $0.clients[record.hostID] }),
              !record.requests.isEmpty || host.version >= WireVersion.directRequests else { return }
        try? host.connection.send(.requestInterrupted(RequestInterrupted(
            requestIDs: Array(record.requests.keys), sessionID: session, reason: reason)))
    }

    // MARK: Policy, every tick

    /// Whether any process is alive, so the tick loop knows whether to keep ticking.
    var hasProcesses: Bool { state.withLock { !$0.processes.isEmpty } }

    /// Checks every process against its point's policy: deadlines, idle grace and memory.
    func tick(now: ContinuousClock.Instant = .now) {
        var kills: [ProcessDescriptor] = []
        var goodbyes: [ExtensionProcessRecord] = []
        var idleNotices: [(Connection, UInt64)] = []
        // Read /proc outside the lock; decide under it.
        let footprints = state.withLock { $0.processes.mapValues(\.process) }.compactMapValues(MemoryFootprint.residentBytes(of:))
        state.withLock { state in
            for (sessionID, var record) in state.processes {
                if let bytes = footprints[sessionID] { record.residentBytes = bytes }
                let host = state.clients[record.hostID]
                let hostClosesIdleSessions = (host?.version ?? 0) >= WireVersion.directRequests
                switch record.check(now: now, terminationGrace: configuration.terminationGrace, idleCloseDeadline: configuration.idleSessionCloseDeadline,
                                          hostClosesIdleSessions: hostClosesIdleSessions) {
                case .none: break
                case .kill: kills.append(record.process)
                case .sayGoodbye: goodbyes.append(record)
                case .askHostToClose: if let host { idleNotices.append((host.connection, sessionID)) }
                }
                state.processes[sessionID] = record
            }
        }
        for process in kills { process.kill() }
        for record in goodbyes { sayGoodbye(to: record, reason: "idle") }
        for (host, session) in idleNotices { try? host.send(.sessionIdle(SessionReference(session))) }
    }

    // MARK: Listing and shutdown

    func processes() -> [ExtensionProcess] {
        let now = ContinuousClock.now
        let listed = state.withLock { state in
            state.processes.values.sorted { $0.sessionID < $1.sessionID }.map { record in
                let host = state.clients[record.hostID]
                return (record.process, ExtensionProcess(
                    pid: record.process.processID, extensionIdentifier: record.installed.identifier,
                    hostPID: host?.credentials.processID ?? 0, hostName: host?.name ?? "",
                    residentBytes: record.residentBytes,
                    ageMilliseconds: UInt64((now - record.startedAt).milliseconds), state: record.stateName,
                    activeRequests: record.requests.count, memoryLimit: UInt64(record.policy.memoryLimit)))
            }
        }
        // The footprint now, read outside the lock; the last tick's if the process is gone.
        return listed.map { descriptor, process in
            var process = process
            process.residentBytes = MemoryFootprint.residentBytes(of: descriptor) ?? process.residentBytes
            return process
        }
    }

    /// Ends every extension: tells each, waits up to the grace period, then kills the rest.
    /// Hosts with requests in flight learn that the daemon is going.
    func shutdown() {
        let records = state.withLock { state -> [ExtensionProcessRecord] in
            state.shuttingDown = true
            for id in state.processes.keys {
                state.processes[id]!.endReason = Interruption(kind: .daemonGone, message: "appexd is shutting down")
            }
            return Array(state.processes.values)
        }
        for record in records { sayGoodbye(to: record, reason: "appexd is shutting down") }
        let deadline = ContinuousClock.now + configuration.terminationGrace
        for record in records {
            let left = max(0, (deadline - .now).milliseconds)
            if !record.process.waitForExit(timeoutMilliseconds: Int32(left)) { record.process.kill() }
        }
        for record in records {
            record.process.waitForExit(timeoutMilliseconds: 1000)
            exited(session: record.sessionID)
        }
    }
}
