import AppexCore
import AppexSystem
import AppexWire

extension ExtensionProcessRecord {
    /// What the supervisor does about a process once checked against its point's policy.
    enum PolicyAction: Sendable, Hashable {
        case none
        /// SIGKILL, now.
        case kill
        /// `Goodbye` and SIGTERM; the tick kills it when the termination grace is over.
        case sayGoodbye
        /// Ask its host to close the idle session (`SessionIdle`).
        case askHostToClose
    }

    /// Checks the process at `now` against its point's policy: the launch deadline, the
    /// memory limit, request deadlines and the idle grace, recording why it ends when it
    /// must. A host that sends requests straight on its sessions (`hostClosesIdleSessions`)
    /// is asked to close an idle one, since only it knows whether a request is on its way;
    /// it has `idleCloseDeadline` to do so.
    mutating func check(now: ContinuousClock.Instant, terminationGrace: Duration, idleCloseDeadline: Duration,
                        hostClosesIdleSessions: Bool) -> PolicyAction {
        switch phase {
        case .launching(let deadline) where now >= deadline:
            let limit = UInt64(policy.launchDeadline.milliseconds)
            endReason = Interruption(kind: .launchDeadline, limit: limit, measured: UInt64((now - startedAt).milliseconds),
                                     message: "\(label) did not check in within its launch deadline of \(limit) ms")
            phase = .ending(killAt: now)
            return .kill
        case .ending(let killAt):
            return now >= killAt ? .kill : .none
        case .running, .launching:
            let counted = MemoryLimits.counted(residentBytes)
            if counted > UInt64(policy.memoryLimit) {
                endReason = Interruption(kind: .memoryLimit, limit: UInt64(policy.memoryLimit), measured: counted,
                                         message: "\(label) used \(counted / 1_048_576) MiB, over its point's limit of \(policy.memoryLimit / 1_048_576) MiB\(MemoryLimits.allowanceNote)")
                phase = .ending(killAt: now)
                return .kill
            }
            if let late = requests.first(where: { $0.value.map { $0 <= now } ?? false }) {
                let limit = UInt64(policy.requestDeadline?.milliseconds ?? 0)
                endReason = Interruption(kind: .requestDeadline, limit: limit,
                                         message: "\(label) did not answer request \(late.key) within its deadline of \(limit) ms")
                phase = .ending(killAt: now)
                return .kill
            }
            guard let idleSince, now >= idleSince + policy.idleGracePeriod else { return .none }
            if let noticed = idleNoticeSentAt {
                guard now >= noticed + idleCloseDeadline else { return .none }
                endReason = Interruption(kind: .protocolError, message: "the host did not close the idle session with \(label) within \(idleCloseDeadline.milliseconds) ms of being asked")
            } else if hostClosesIdleSessions {
                idleNoticeSentAt = now
                hostWasAskedToClose = true
                return .askHostToClose
            }
            phase = .ending(killAt: now + terminationGrace)
            return .sayGoodbye
        }
    }

    /// Whether the process ended other than by exiting cleanly when it chose to or was asked:
    /// ended by appexd for a limit, unable to start, killed by a signal, or exited with a
    /// failure status.
    func endedAbnormally(exitStatus status: ExitStatus?) -> Bool {
        if endReason != nil || launchFailure != nil { return true }
        switch status {
        case .exited(0)?: return false
        default: return true
        }
    }

    /// Why its unanswered requests ended, for its host, once it exited with `status`: the
    /// reason recorded when it was ended, what it said when it could not start, or how it died.
    func interruption(exitStatus status: ExitStatus?) -> Interruption {
        if let endReason { return endReason }
        if let launchFailure {
            return Interruption(kind: .launchFailed, message: "\(label) could not start: \(launchFailure.message)")
        }
        switch status {
        case .signaled(let signal, _)?:
            return Interruption(kind: .crashed, signal: signal, message: "\(label) crashed: \(status!)")
        case .exited(let code)?:
            return Interruption(kind: .crashed, exitStatus: code, message: "\(label) exited with status \(code) before answering")
        case nil:
            return Interruption(kind: .crashed, message: "\(label) ended before answering")
        }
    }
}
