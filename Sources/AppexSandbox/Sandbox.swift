public import AppexSystem
import Foundation

/// The launcher: applies a ``SandboxProfile`` to a process it spawns, with every layer this
/// kernel offers, between fork and exec. It holds no policy; the profile says what is
/// allowed. A layer the kernel lacks is listed in ``layers`` and, with `APPEX_SANDBOX=strict`,
/// makes every launch fail.
///
/// ```swift
/// let profile = SandboxProfile(executable: SandboxProfile.systemExecutable + [bundle],
///                              readOnly: SandboxProfile.systemReadOnly,
///                              readWrite: SandboxProfile.systemReadWrite + [container])
/// let process = try Sandbox().spawn(launch, profile: profile)
/// ```
public struct Sandbox: Sendable {
    /// What the kernel offers.
    public struct KernelSupport: Sendable, Hashable {
        /// The Landlock ABI, or nil without Landlock.
        public var landlockABI: Int?
        public var seccomp: Bool
        /// Whether memory files can be sealed against execution (`MFD_NOEXEC_SEAL`, Linux
        /// 6.3), so that the seccomp baseline can refuse the others.
        public var memoryFilesSealAgainstExecution: Bool
        /// Whether a process can be made in user, pid and mount namespaces of its own, with a
        /// fresh /proc: nil if so, else why not.
        public var isolationProblem: String?
        /// Whether a process can be made in a network namespace of its own: nil if so, else why not.
        public var networkIsolationProblem: String?

        public init(landlockABI: Int?, seccomp: Bool, memoryFilesSealAgainstExecution: Bool = true, isolationProblem: String? = nil,
                    networkIsolationProblem: String? = nil) {
            self.landlockABI = landlockABI
            self.seccomp = seccomp
            self.memoryFilesSealAgainstExecution = memoryFilesSealAgainstExecution
            self.isolationProblem = isolationProblem
            self.networkIsolationProblem = networkIsolationProblem
        }

        /// This machine's, probed from the kernel once per process: the namespaces by making
        /// a child in them.
        public static var current: KernelSupport { probed }

        private static let probed: KernelSupport = {
            func problem(_ namespaces: ProcessRestrictions.Namespaces) -> String? {
                guard case .failure(let error) = namespaces.probe() else { return nil }
                return "\(error) (unprivileged user namespaces may be disabled: see kernel.unprivileged_userns_clone, "
                    + "user.max_user_namespaces and AppArmor's apparmor_restrict_unprivileged_userns)"
            }
            return KernelSupport(
                landlockABI: LandlockRuleset.kernelABI, seccomp: ProcessRestrictions.seccompIsAvailable,
                memoryFilesSealAgainstExecution: ProcessRestrictions.memoryFilesCanBeSealedAgainstExecution,
                isolationProblem: problem(Sandbox.isolation), networkIsolationProblem: problem([.user, .network]))
        }()
    }

    public var kernel: KernelSupport
    /// Whether a missing layer fails the launch instead of being reported.
    public var isStrict: Bool
    /// Whether extensions run with no sandbox at all: for measuring what the sandbox costs,
    /// and for debugging, as a browser's `--no-sandbox` is. appexd says so at every launch.
    public var isOff: Bool

    /// The setting that makes a missing layer an error: `APPEX_SANDBOX=strict`.
    public static let strictSetting = (name: "APPEX_SANDBOX", value: "strict")
    /// The setting that turns the sandbox off: `APPEX_SANDBOX=off`.
    public static let offSetting = (name: "APPEX_SANDBOX", value: "off")

    /// A launcher for `kernel`, strict and off as `isStrict` and `isOff` say, or else as the
    /// environment's `APPEX_SANDBOX` says.
    public init(kernel: KernelSupport = .current, isStrict: Bool? = nil, isOff: Bool? = nil) {
        let setting = ProcessInfo.processInfo.environment[Self.strictSetting.name]
        self.kernel = kernel
        self.isStrict = isStrict ?? (setting == Self.strictSetting.value)
        self.isOff = isOff ?? (setting == Self.offSetting.value)
    }

    /// Every layer, in the order applied, with its state on this kernel.
    public var layers: [SandboxLayer] {
        let abi = kernel.landlockABI ?? 0
        func landlock(_ kind: SandboxLayer.Kind, from needed: Int, what: String) -> SandboxLayer {
            if abi >= needed { return SandboxLayer(kind: kind, state: .active(detail: "Landlock ABI \(abi)")) }
            let reason = kernel.landlockABI == nil
                ? "the kernel has no Landlock, or it is disabled at boot (lsm=)"
                : "\(what) needs Landlock ABI \(needed); this kernel has \(abi)"
            return SandboxLayer(kind: kind, state: .unavailable(reason: reason))
        }
        func namespaces(_ kind: SandboxLayer.Kind, _ problem: String?, detail: String) -> SandboxLayer {
            SandboxLayer(kind: kind, state: problem.map { .unavailable(reason: $0) } ?? .active(detail: detail))
        }
        return [
            namespaces(.namespaces, kernel.isolationProblem, detail: "user, pid and mount; a /proc of its own"),
            namespaces(.networkNamespace, kernel.networkIsolationProblem, detail: sharesEmptyNetwork
                ? "no network without com.apple.security.network.client; one empty namespace, shared"
                : "no network without com.apple.security.network.client; one per process"),
            SandboxLayer(kind: .noNewPrivileges, state: .active(detail: "prctl(PR_SET_NO_NEW_PRIVS)")),
            SandboxLayer(kind: .resourceLimits, state: .active(detail: kernel.isolationProblem == nil
                ? "open files, core dumps, processes (in its user namespace)" : "open files, core dumps")),
            landlock(.landlockFilesystem, from: 1, what: "file access control"),
            landlock(.landlockNetwork, from: 4, what: "TCP control"),
            landlock(.landlockScopes, from: 6, what: "scoping signals and abstract sockets"),
            SandboxLayer(kind: .seccomp, state: kernel.seccomp
                ? .active(detail: "refuses ptrace, mount, kernel modules, bpf, keyrings, namespaces, …")
                : .unavailable(reason: "the kernel was built without seccomp filtering")),
            SandboxLayer(kind: .executableMemory, state: !kernel.seccomp
                ? .unavailable(reason: "it is part of the seccomp baseline, which this kernel lacks")
                : kernel.memoryFilesSealAgainstExecution
                    ? .active(detail: "memory files must be sealed against execution (MFD_NOEXEC_SEAL)")
                    : .unavailable(reason: "sealing memory files against execution needs Linux 6.3, so a memory file the process writes could be run")),
        ]
    }

    /// The layers this kernel lacks.
    public var missingLayers: [SandboxLayer] { layers.filter { !$0.isActive } }

    /// The namespaces every sandboxed process is made in where the kernel allows: its own
    /// users, processes and mounts. A network namespace comes on top, unless it may connect.
    public static let isolation: ProcessRestrictions.Namespaces = [.user, .pid, .mount]

    /// The empty network namespace that processes without the network share, made once per
    /// process; nil where it can't be made.
    private static let emptyNetwork = try? EmptyNetworkNamespace()

    /// Whether a process with no network joins one empty network namespace, made once, rather
    /// than making one of its own: where it can make its own user namespace inside it, and
    /// where Landlock scopes abstract Unix sockets (ABI 6), the one way processes that share a
    /// network namespace could still meet in it.
    public var sharesEmptyNetwork: Bool {
        kernel.isolationProblem == nil && kernel.networkIsolationProblem == nil && (kernel.landlockABI ?? 0) >= 6
            && Self.emptyNetwork != nil
    }

    /// The kernel's restrictions that carry out `profile` with the layers this kernel has.
    /// Throws in strict mode if any layer is missing.
    public func restrictions(for profile: SandboxProfile) throws(SandboxError) -> ProcessRestrictions {
        if isStrict, !missingLayers.isEmpty { throw .missingLayers(missingLayers) }
        var namespaces: ProcessRestrictions.Namespaces = []
        var emptyNetwork: EmptyNetworkNamespace?
        if kernel.isolationProblem == nil { namespaces = Self.isolation }
        if kernel.networkIsolationProblem == nil, !profile.mayConnect {
            if sharesEmptyNetwork { emptyNetwork = Self.emptyNetwork } else { namespaces.formUnion([.user, .network]) }
        }
        var limits = [Int32(RLIMIT_NOFILE.rawValue): profile.openFiles, Int32(RLIMIT_CORE.rawValue): profile.coreDumps ? UInt64.max : 0]
        // In a user namespace of its own the kernel counts only the sandbox's processes.
        if let processes = profile.processes, namespaces.contains(.user) { limits[Int32(__RLIMIT_NPROC.rawValue)] = processes }
        var restrictions = ProcessRestrictions(namespaces: namespaces, emptyNetwork: emptyNetwork, resourceLimits: limits,
                                               seccompBaseline: kernel.seccomp,
                                               seccompRefusesExecutableMemory: kernel.seccomp && kernel.memoryFilesSealAgainstExecution,
                                               hiddenPaths: namespaces.contains(.mount) ? profile.hidden : [])
        if let abi = kernel.landlockABI, abi >= 1 {
            let known = LandlockRuleset.FilesystemAccess.known(by: abi)
            let runnable: LandlockRuleset.FilesystemAccess = [.execute, .readFile, .readDirectory]
            let writable = LandlockRuleset.FilesystemAccess.read.union(.write).intersection(known)
            func rule(_ path: String, _ access: LandlockRuleset.FilesystemAccess) -> LandlockRuleset.Rule {
                LandlockRuleset.Rule(path, access, confinedTo: profile.confiningFolder(of: path))
            }
            var rules = profile.executable.map { rule($0, runnable) }
            // Its own /proc shows only its own processes; the system's, only its own entry.
            let proc = namespaces.isSuperset(of: [.pid, .mount]) ? "/proc" : "/proc/self"
            rules += (profile.readOnly + [proc]).map { rule($0, .read) }
            rules += profile.readWrite.map { rule($0, writable) }
            restrictions.landlock = LandlockRuleset(
                abi: abi, handledFilesystem: known,
                handledNetwork: abi >= 4 ? (profile.mayConnect ? [.bindTCP] : [.bindTCP, .connectTCP]) : [],
                scopes: abi >= 6 ? [.abstractUnixSockets, .signals] : [],
                rules: rules)
        }
        return restrictions
    }

    /// Spawns `launch` with `profile` applied, or throws what stopped it: a missing layer in
    /// strict mode, or the step that failed.
    public func spawn(_ launch: ProcessLaunch, profile: SandboxProfile) throws(SandboxError) -> ProcessDescriptor {
        var launch = launch
        launch.restrictions = try restrictions(for: profile)
        do {
            return try launch.spawn()
        } catch {
            throw .spawnFailed(error)
        }
    }
}

/// Why a sandboxed launch failed.
public enum SandboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `APPEX_SANDBOX=strict` is set and the kernel lacks these layers.
    case missingLayers([SandboxLayer])
    /// The spawn failed: exec, or applying a layer (the error's operation names which).
    case spawnFailed(SystemError)

    public var description: String {
        switch self {
        case .missingLayers(let layers):
            "the sandbox is incomplete on this kernel: \(layers.map(\.description).joined(separator: "; ")). "
                + "\(Sandbox.strictSetting.name)=\(Sandbox.strictSetting.value) makes that an error; unset it to run with the layers there are, or use a kernel with them"
        case .spawnFailed(let error):
            "the sandboxed launch failed: \(error)"
        }
    }
}
