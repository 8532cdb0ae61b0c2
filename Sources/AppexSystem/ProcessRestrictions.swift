import CAppexSystem
import Glibc

/// What a spawned process may do, in the kernel's terms: the namespaces it is made in,
/// resource limits, a Landlock ruleset and the seccomp baseline. The child applies them to
/// itself between fork and exec (`appex_sandbox_apply`), and the spawn fails, saying which
/// step, if any can't be applied.
///
/// It holds no policy: AppexSandbox's `SandboxProfile` decides what to allow and builds one.
public struct ProcessRestrictions: Sendable, Hashable, Codable {
    /// The namespaces a process is made in. Any of them needs ``user``, in which the process
    /// keeps its own uid and gid and has no others.
    public struct Namespaces: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// Its own user namespace (CLONE_NEWUSER), which lets an unprivileged process make the others.
        public static let user = Namespaces(rawValue: Int32(APPEX_NAMESPACE_USER))
        /// Its own pid namespace (CLONE_NEWPID): it sees no process outside, and is its init.
        /// With ``mount``, it gets a /proc of its own that shows only the namespace.
        public static let pid = Namespaces(rawValue: Int32(APPEX_NAMESPACE_PID))
        /// Its own mount namespace (CLONE_NEWNS), a copy of this one.
        public static let mount = Namespaces(rawValue: Int32(APPEX_NAMESPACE_MOUNT))
        /// Its own network namespace (CLONE_NEWNET): only a loopback device, down, so no network.
        public static let network = Namespaces(rawValue: Int32(APPEX_NAMESPACE_NETWORK))

        /// Whether this kernel lets this process make a child in these namespaces, or the
        /// error of the step that fails (such as "proc" where mounting a fresh /proc is refused).
        public func probe() -> Result<Void, SystemError> {
            var step: CInt = 0
            guard appex_namespaces_probe(rawValue, -1, -1, &step) == 0 else {
                return .failure(SystemError(ProcessRestrictions.stepName(step)))
            }
            return .success(())
        }
    }

    /// The namespaces to make the process in; empty for none.
    public var namespaces: Namespaces
    /// A network namespace for the process to join, instead of making one of its own: it
    /// joins it, then makes its ``namespaces`` (which must include ``Namespaces/user`` and
    /// not ``Namespaces/network``) inside the user namespace that owns it.
    public var emptyNetwork: EmptyNetworkNamespace?
    /// Resource limits, soft and hard alike, by `RLIMIT_*` number.
    public var resourceLimits: [Int32: UInt64]
    /// The Landlock ruleset, or nil for none.
    public var landlock: LandlockRuleset?
    /// Whether to install the seccomp baseline, which refuses debugging other processes,
    /// mounting, loading kernel code, keyrings, clock changes and new namespaces.
    public var seccompBaseline: Bool
    /// With the baseline, whether it also refuses a memory file that isn't sealed against
    /// execution (`MFD_NOEXEC_SEAL`): Landlock's execute right covers paths, and a memory file
    /// has none, so one the process wrote could otherwise be run. Needs Linux 6.3
    /// (``memoryFilesCanBeSealedAgainstExecution``).
    public var seccompRefusesExecutableMemory: Bool
    /// Folders covered with an empty, read-only folder in the process's mount namespace (so
    /// only with `.mount`), where nothing in them can be reached: not even what Landlock
    /// doesn't govern, such as connecting to a Unix socket by its path.
    public var hiddenPaths: [String]

    /// Every field but ``emptyNetwork``, whose descriptors travel beside the rest (LaunchOrder).
    enum CodingKeys: String, CodingKey {
        case namespaces, resourceLimits, landlock, seccompBaseline, seccompRefusesExecutableMemory, hiddenPaths
    }

    public init(namespaces: Namespaces = [], emptyNetwork: EmptyNetworkNamespace? = nil, resourceLimits: [Int32: UInt64] = [:],
                landlock: LandlockRuleset? = nil, seccompBaseline: Bool = false, seccompRefusesExecutableMemory: Bool = false,
                hiddenPaths: [String] = []) {
        self.namespaces = namespaces
        self.emptyNetwork = emptyNetwork
        self.resourceLimits = resourceLimits
        self.landlock = landlock
        self.seccompBaseline = seccompBaseline
        self.seccompRefusesExecutableMemory = seccompRefusesExecutableMemory
        self.hiddenPaths = hiddenPaths
    }

    /// Whether this kernel filters system calls with seccomp.
    public static var seccompIsAvailable: Bool { appex_seccomp_available() == 1 }

    /// Whether this kernel makes memory files sealed against execution (`MFD_NOEXEC_SEAL`,
    /// Linux 6.3), which ``seccompRefusesExecutableMemory`` needs.
    public static var memoryFilesCanBeSealedAgainstExecution: Bool { appex_memfd_noexec_seal_available() == 1 }

    /// Applies the limits and the Landlock ruleset to the calling thread, and to the threads
    /// and processes it starts from now on, with no_new_privs; not the namespaces, which only
    /// a new process can be made in, nor the seccomp baseline. For
    /// code that runs part of its work restricted, and for tests of what restricted code can do.
    public func applyToCallingThread() throws(SystemError) {
        var step: CInt = 0
        var restrictions = self
        restrictions.namespaces = []
        restrictions.emptyNetwork = nil
        let result = restrictions.withC { sandbox in appex_sandbox_apply(&sandbox, &step) }
        guard result == 0 else { throw failure(at: step) }
    }

    /// Calls `body` with the C form, valid only during the call.
    func withC<T>(_ body: (inout appex_sandbox) -> T) -> T {
        let resources = resourceLimits.keys.sorted()
        let values = resources.map { CUnsignedLongLong(resourceLimits[$0]!) }
        let rules = landlock?.rules ?? []
        let paths = rules.map { strdup($0.confinedPath ?? $0.path) }
        defer { paths.forEach { free($0) } }
        let confinedTo: [UnsafeMutablePointer<CChar>?] = rules.map { rule in
            guard rule.confinedPath != nil, let folder = rule.confinedTo else { return nil }
            return strdup(folder)
        }
        defer { confinedTo.forEach { free($0) } }
        let confinedPointers: [UnsafePointer<CChar>?] = confinedTo.map { $0.map { UnsafePointer($0) } }
        let hidden = hiddenPaths.map { strdup($0) }
        defer { hidden.forEach { free($0) } }
        let access = rules.map { CUnsignedLongLong($0.access.rawValue) }
        let userMap = strdup("\(getuid()) \(getuid()) 1\n")
        let groupMap = strdup("\(getgid()) \(getgid()) 1\n")
        defer {
            free(userMap)
            free(groupMap)
        }
        let cResources = resources.map { CInt($0) }
        return cResources.withUnsafeBufferPointer { cResources in
            values.withUnsafeBufferPointer { values in
                paths.map { UnsafePointer($0) }.withUnsafeBufferPointer { paths in
                    access.withUnsafeBufferPointer { access in
                        confinedPointers.withUnsafeBufferPointer { confinedTo in
                            hidden.map { UnsafePointer($0) }.withUnsafeBufferPointer { hidden in
                                var sandbox = appex_sandbox(
                                    namespaces: namespaces.rawValue, userMap: userMap, groupMap: groupMap,
                                    limitResources: cResources.baseAddress, limitValues: values.baseAddress, limitCount: CInt(values.count),
                                    landlockABI: CInt(landlock?.abi ?? 0),
                                    handledFilesystem: CUnsignedLongLong(landlock?.handledFilesystem.rawValue ?? 0),
                                    handledNetwork: CUnsignedLongLong(landlock?.handledNetwork.rawValue ?? 0),
                                    scopes: CUnsignedLongLong(landlock?.scopes.rawValue ?? 0),
                                    rulePaths: paths.baseAddress, ruleAccess: access.baseAddress, ruleCount: CInt(rules.count),
                                    ruleConfinedTo: confinedTo.baseAddress,
                                    seccompBaseline: seccompBaseline ? 1 : 0,
                                    seccompRefusesExecutableMemory: seccompRefusesExecutableMemory ? 1 : 0,
                                    hiddenPaths: hidden.baseAddress, hiddenCount: CInt(hidden.count),
                                    joinsNetwork: emptyNetwork == nil ? 0 : 1,
                                    joinedUserFD: emptyNetwork?.user.rawValue ?? -1,
                                    joinedNetworkFD: emptyNetwork?.network.rawValue ?? -1)
                                return body(&sandbox)
                            }
                        }
                    }
                }
            }
        }
    }

    /// The error of the step `appex_spawn` reports as failed, with `errno`; for a confined
    /// rule's path, which one and what was found there.
    func failure(at step: CInt) -> SystemError {
        let error = errno
        let index = Int(step) - Int(APPEX_SPAWN_STEP_GRANT)
        guard let rules = landlock?.rules, rules.indices.contains(index), let folder = rules[index].confinedTo else {
            return SystemError(Self.stepName(step), errno: error)
        }
        let found = switch error {
        case ELOOP: "a symbolic link is on the way, and none is followed below \(folder)"
        case ENOTDIR: "it is not a folder"
        case EXDEV: "it leads out of \(folder)"
        default: "it can't be opened"
        }
        return SystemError("landlock: granting \(rules[index].path) refused: \(found)", errno: error)
    }

    /// The name of the step `appex_spawn` reports as failed.
    static func stepName(_ step: CInt) -> String {
        switch step {
        case CInt(APPEX_SPAWN_STEP_NO_NEW_PRIVILEGES): "no_new_privs"
        case CInt(APPEX_SPAWN_STEP_RESOURCE_LIMIT): "setrlimit"
        case CInt(APPEX_SPAWN_STEP_LANDLOCK): "landlock"
        case CInt(APPEX_SPAWN_STEP_SECCOMP): "seccomp"
        case CInt(APPEX_SPAWN_STEP_NAMESPACES): "clone (namespaces)"
        case CInt(APPEX_SPAWN_STEP_ID_MAPS): "uid_map"
        case CInt(APPEX_SPAWN_STEP_PROC): "mount /proc"
        case CInt(APPEX_SPAWN_STEP_HIDE): "mount (hiding a folder)"
        case CInt(APPEX_SPAWN_STEP_JOIN): "setns (the empty network namespace)"
        default: "spawn"
        }
    }
}
