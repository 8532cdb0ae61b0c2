import CAppexSystem
import Glibc

/// How to start a process: the executable, its arguments and environment, and exactly
/// which descriptors it gets. Every other descriptor is closed in the child.
///
/// ```swift
/// let (ours, theirs) = try UnixSocket.pair()
/// let child = try ProcessLaunch(executable: "/usr/bin/cat", descriptors: [(theirs, 0)]).spawn()
/// ```
public struct ProcessLaunch: Sendable {
    /// The absolute path of the executable.
    public var executable: String
    /// The arguments after argv[0], which is the executable's path.
    public var arguments: [String]
    /// The whole environment, as `NAME=value` pairs.
    public var environment: [String: String]
    /// Descriptors to install in the child, each at the given number. 0, 1 and 2 are
    /// /dev/null unless listed.
    public var descriptors: [(FileDescriptor, Int32)]
    /// The child's working directory; nil keeps this process's.
    public var directory: String?
    /// Whether the child gets SIGKILL if this process dies (PR_SET_PDEATHSIG). The kernel
    /// ties this to the thread that forks, so such a child is forked from one thread that
    /// lives as long as the process, whichever thread calls ``spawn()``.
    public var diesWithParent: Bool
    /// The child's address-space limit (RLIMIT_AS, soft and hard) in bytes; nil keeps this
    /// process's.
    public var addressSpaceLimit: UInt64?
    /// The sandbox the child applies to itself before exec, or nil for none.
    public var restrictions: ProcessRestrictions?

    public init(executable: String, arguments: [String] = [], environment: [String: String] = [:],
                descriptors: [(FileDescriptor, Int32)] = [], directory: String? = nil, diesWithParent: Bool = false,
                addressSpaceLimit: UInt64? = nil, restrictions: ProcessRestrictions? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.descriptors = descriptors
        self.directory = directory
        self.diesWithParent = diesWithParent
        self.addressSpaceLimit = addressSpaceLimit
        self.restrictions = restrictions
    }

    /// Forks and executes. Returns once the child has executed, or throws the error of the
    /// step that failed (the exec's, such as ENOENT, or a sandbox layer's, named by the
    /// error's operation) with no process left behind.
    ///
    /// In a pid namespace of its own, the process is the namespace's init. A program that
    /// links CAppexSystem forks itself an init there and runs as its child, and the returned
    /// descriptor reports the program's exit, not the init's (init.c in CAppexSystem).
    ///
    /// An executable the kernel finds busy (ETXTBSY: open for writing somewhere) is tried again
    /// for up to ``busyExecutableWait``. An install's copy of it stays open for a moment in
    /// any child another thread of the installing process forks meanwhile, until that child
    /// execs, as in a test process that installs and launches at once.
    public func spawn() throws(SystemError) -> ProcessDescriptor {
        let deadline = ContinuousClock.now + Self.busyExecutableWait
        while true {
            do {
                guard diesWithParent else { return try spawnOnThisThread() }
                return try LauncherThread.shared.spawn(self)
            } catch where error.errno == ETXTBSY && ContinuousClock.now < deadline {
                usleep(10_000)
            }
        }
    }

    /// How long ``spawn()`` tries again an executable that is busy.
    public static let busyExecutableWait = Duration.seconds(1)

    /// Forks from the calling thread, which the child's PR_SET_PDEATHSIG is tied to.
    func spawnOnThisThread() throws(SystemError) -> ProcessDescriptor {
        try withInitStatus { launch, pidfd, failedStep throws(SystemError) in
            launch.withCArguments { path, argv, envp, options in appex_spawn(path, argv, envp, &options, &pidfd, &failedStep) }
        }
    }

    /// Forks without exec: the child takes every step ``spawn()``'s child takes before exec,
    /// the sandbox included, then runs `body(context)` with ``environment`` as its
    /// environment, where the executable would start; ``executable`` and ``arguments`` are the
    /// body's to use. For a launcher that has already started what its programs need, and
    /// forks them from itself (docs/zygote.md).
    ///
    /// The calling process must have one thread and be a subreaper (PR_SET_CHILD_SUBREAPER):
    /// with a pid namespace, the process returned is the namespace's first process, which
    /// reaches this one as an orphan; its body forks the program off with
    /// `appex_init_become_if_asked`, as init.c does at a spawned program's start. With
    /// ``diesWithParent``, the program ends when this process does: as its child through
    /// PR_SET_PDEATHSIG, and under an init, which is not this process's child but its
    /// orphan's, because the init watches a pidfd of this process. Throws as ``spawn()`` does.
    public func forkRunning(_ body: @convention(c) (UnsafeMutableRawPointer?) -> Void, context: UnsafeMutableRawPointer?) throws(SystemError) -> ProcessDescriptor {
        var launch = self
        var watched: FileDescriptor?
        defer { watched?.close() }
        if diesWithParent, restrictions?.namespaces.contains(.pid) == true {
            let own = FileDescriptor(owning: try retrying("pidfd_open", subject: "this process") { appex_pidfd_open(getpid()) })
            watched = own
            let target = max(2, descriptors.map(\.1).max() ?? 2) + 1
            launch.descriptors.append((own, target))
            launch.environment[APPEX_INIT_WATCH_SETTING] = "\(target)"
            launch.diesWithParent = false
        }
        return try launch.withInitStatus { launch, pidfd, failedStep throws(SystemError) in
            launch.withCArguments { _, _, envp, options in
                envp.withUnsafeBufferPointer { envp in appex_fork_run(&options, envp.baseAddress, body, context, &pidfd, &failedStep) }
            }
        }
    }

    /// Starts this launch with `start`, given a pid namespace's init status pipe when it makes
    /// one (init.c), and returns the process or throws the step that failed.
    private func withInitStatus(_ start: (ProcessLaunch, inout Int32, inout Int32) throws(SystemError) -> pid_t) throws(SystemError) -> ProcessDescriptor {
        var launch = self
        var exitReport: FileDescriptor?
        var reportWriter: FileDescriptor?
        if restrictions?.namespaces.contains(.pid) == true {
            let pipe = try FileDescriptor.pipe()
            // Read once the process has exited, and never waited on: a program that doesn't
            // link CAppexSystem writes nothing.
            _ = fcntl(pipe.read.rawValue, F_SETFL, O_NONBLOCK)
            reportWriter = pipe.write
            let target = max(2, descriptors.map(\.1).max() ?? 2) + 1
            launch.descriptors.append((pipe.write, target))
            launch.environment[APPEX_INIT_STATUS_SETTING] = "\(target)"
            exitReport = pipe.read
        }
        var pidfd: Int32 = -1
        var failedStep: Int32 = 0
        let pid = try start(launch, &pidfd, &failedStep)
        let error = errno
        reportWriter?.close()
        guard pid > 0 else {
            exitReport?.close()
            errno = error
            guard let restrictions, failedStep >= CInt(APPEX_SPAWN_STEP_GRANT) else {
                throw SystemError(ProcessRestrictions.stepName(failedStep), subject: executable)
            }
            throw restrictions.failure(at: failedStep)
        }
        return ProcessDescriptor(processID: pid, owning: FileDescriptor(owning: pidfd), exitReport: exitReport)
    }

    /// Starts the process detached: in its own session, a child of init rather than of this
    /// process, so it outlives this process and is never this process's to reap. For
    /// daemons started on demand. Returns its pid.
    public func spawnDetached() throws(SystemError) -> Int32 {
        let pid = withCArguments { path, argv, envp, options in appex_spawn_detached(path, argv, envp, &options) }
        guard pid > 0 else { throw SystemError("spawn", subject: executable) }
        return pid
    }

    private func withCArguments(_ body: (String, [UnsafeMutablePointer<CChar>?], [UnsafeMutablePointer<CChar>?], inout appex_spawn_options) -> pid_t) -> pid_t {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let fds = descriptors.map { $0.0.rawValue }
        let targets = descriptors.map(\.1)
        return fds.withUnsafeBufferPointer { fds in
            targets.withUnsafeBufferPointer { targets in
                let cDirectory = directory.map { strdup($0) } ?? nil
                defer { free(cDirectory) }
                var options = appex_spawn_options(
                    fds: fds.baseAddress, targets: targets.baseAddress, fdCount: Int32(fds.count),
                    directory: cDirectory, dieWithParent: diesWithParent ? 1 : 0,
                    addressSpaceLimit: addressSpaceLimit ?? 0, sandbox: nil
                )
                guard let restrictions else { return body(executable, argv, envp, &options) }
                return restrictions.withC { sandbox in
                    withUnsafePointer(to: &sandbox) { sandbox in
                        options.sandbox = sandbox
                        return body(executable, argv, envp, &options)
                    }
                }
            }
        }
    }
}
