import CAppexSystem
import Glibc

/// A process, held through a pidfd: it can't be confused with a later process that reuses
/// the pid, and its exit can be waited for with poll.
public final class ProcessDescriptor: Sendable, CustomStringConvertible {
    /// The process id when the descriptor was taken.
    public let processID: Int32
    /// The pidfd.
    public let descriptor: FileDescriptor
    /// Where the process is the init of a pid namespace that runs the program as its child:
    /// the pipe the init writes the program's wait status to before it exits (init.c in
    /// CAppexSystem). ``reap()`` reports that status instead of the init's own.
    public let exitReport: FileDescriptor?

    /// Whether the process is this process's child, to reap. One another process reaps (the
    /// launcher's, docs/zygote.md) is known to have ended only through its pidfd, and how
    /// only through ``exitReport``.
    public let isChild: Bool

    /// Takes ownership of `pidfd`, a pidfd for `processID`, and of `exitReport`.
    public init(processID: Int32, owning pidfd: FileDescriptor, exitReport: FileDescriptor? = nil, isChild: Bool = true) {
        self.processID = processID
        self.descriptor = pidfd
        self.exitReport = exitReport
        self.isChild = isChild
    }

    /// A pidfd for the process `processID` (pidfd_open).
    public convenience init(processID: Int32) throws(SystemError) {
        let raw = try retrying("pidfd_open", subject: "pid \(processID)") { appex_pidfd_open(processID) }
        self.init(processID: processID, owning: FileDescriptor(owning: raw))
    }

    /// The peer of `socket`, taken by the kernel at connect time (SO_PEERPIDFD). Where the
    /// kernel predates it, falls back to opening the pid SO_PEERCRED reports.
    public convenience init(peerOf socket: FileDescriptor) throws(SystemError) {
        let credentials = try PeerCredentials(of: socket)
        let raw = appex_peer_pidfd(socket.rawValue)
        if raw >= 0 {
            self.init(processID: credentials.processID, owning: FileDescriptor(owning: raw))
        } else {
            try self.init(processID: credentials.processID)
        }
    }

    /// The path of the process's executable, or nil once it has exited: read through its pid
    /// (`/proc/PID/exe`), then confirmed through the pidfd, so a pid that another process
    /// took after this one exited is never read as this one's.
    public var executablePath: String? {
        let path = ProcessTree.executablePath(of: processID)
        return appex_pidfd_send_signal(descriptor.rawValue, 0) == 0 ? path : nil
    }

    /// Sends `signal`; does nothing if the process has already exited.
    public func send(signal: Int32) {
        _ = appex_pidfd_send_signal(descriptor.rawValue, signal)
    }

    /// Ends the process with SIGKILL.
    ///
    /// Where it is the init a sandboxed program forked for its pid namespace, the program
    /// and what it started are killed instead, and the init exits once it has reported how
    /// the program ended. So a program that ended on its own a moment before is reported as
    /// it ended (such as SIGABRT), not as killed.
    public func kill() {
        guard exitReport != nil, ProcessTree.name(of: processID) == APPEX_INIT_PROCESS_NAME else {
            send(signal: SIGKILL)
            return
        }
        // The init reaps them and reports; with none left, it is already reporting. Once the
        // program has ended the init exits, and the kernel ends whatever is left in its pid
        // namespace, so its children are enough.
        killChildren(among: ProcessTree.children(of: processID))
    }

    /// Sends SIGKILL to each of `pids` that is this process's child. A pid read from /proc
    /// may belong to another process by the time its pidfd opens, if the child it was
    /// ended and was reaped between: each is signalled only if its parent, read once the
    /// pidfd holds it, is this process, and it was alive after that read, so that the read
    /// was of the process the pidfd holds.
    func killChildren(among pids: [Int32]) {
        for pid in pids {
            guard let child = try? ProcessDescriptor(processID: pid) else { continue }
            guard ProcessTree.parent(of: pid) == processID, appex_pidfd_send_signal(child.descriptor.rawValue, 0) == 0 else { continue }
            child.send(signal: SIGKILL)
        }
    }

    /// Whether the process has exited (its pidfd is readable). Doesn't reap it.
    public var hasExited: Bool { waitForExit(timeoutMilliseconds: 0) }

    /// Waits up to `timeoutMilliseconds` (-1: forever) for the process to exit.
    /// Returns whether it did.
    @discardableResult
    public func waitForExit(timeoutMilliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, timeoutMilliseconds)
            if result >= 0 { return result > 0 }
            if errno != EINTR { return false }
        }
    }

    /// Waits up to `graceMilliseconds` for this child to exit, then kills it and waits for
    /// that, and reaps it: a child is never left a zombie, which would keep anything that
    /// waits for any child (as swift-testing's exit tests do) from seeing the one it awaits.
    @discardableResult
    public func end(graceMilliseconds: Int32) -> ExitStatus? {
        if !waitForExit(timeoutMilliseconds: graceMilliseconds) {
            kill()
            waitForExit(timeoutMilliseconds: -1)
        }
        return reap()
    }

    /// Reaps this child if it has exited, returning how it ended; nil while it runs.
    /// Only the parent can reap; for other processes this returns nil, except one that
    /// another reaps (not ``isChild``) and that has an ``exitReport``: its reported status
    /// once it has exited, or SIGKILL if it ended without reporting (its init was killed).
    public func reap() -> ExitStatus? {
        guard isChild else {
            guard exitReport != nil, hasExited else { return nil }
            return reportedStatus() ?? .signaled(SIGKILL, coreDumped: false)
        }
        var code: Int32 = 0
        var status: Int32 = 0
        guard appex_pidfd_reap(descriptor.rawValue, &code, &status) == 1 else { return nil }
        if code == Int32(CLD_EXITED), status == 0, let reported = reportedStatus() { return reported }
        switch code {
        case Int32(CLD_EXITED): return .exited(status)
        case Int32(CLD_DUMPED): return .signaled(status, coreDumped: true)
        default: return .signaled(status, coreDumped: false)
        }
    }

    public var description: String { "pid \(processID)" }

    /// The program's wait status from ``exitReport``, if the init wrote one.
    private func reportedStatus() -> ExitStatus? {
        guard let exitReport else { return nil }
        var status: Int32 = 0
        var got: Int
        repeat {
            got = Glibc.read(exitReport.rawValue, &status, MemoryLayout<Int32>.size)
        } while got < 0 && errno == EINTR
        guard got == MemoryLayout<Int32>.size else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal, coreDumped: status & 0x80 != 0)
    }
}

/// How a process ended.
public enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
    /// It called exit with this status.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32, coreDumped: Bool)

    public var description: String {
        switch self {
        case .exited(let status): return "exited with status \(status)"
        case .signaled(let signal, let dumped):
            return "killed by \(Self.signalName(signal))\(dumped ? " (core dumped)" : "")"
        }
    }

    /// The C name of a signal, such as `SIGSEGV`.
    public static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
            SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM", SIGSYS: "SIGSYS", SIGXCPU: "SIGXCPU",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
