/// What one sandboxed process may do, as appexd decides it for an extension from its bundle,
/// its entitlements and its point: the paths it may read, run and write, whether it may
/// open TCP connections, and its resource limits. ``Sandbox`` applies it; the profile holds
/// the whole policy, and the launcher none.
public struct SandboxProfile: Sendable, Hashable {
    /// Paths whose files it may read and run: its bundle, the system's libraries.
    public var executable: [String]
    /// Paths it may read, but not run.
    public var readOnly: [String]
    /// Paths it may read and change, but not run from: its container, its app groups'
    /// containers, its tmp, and devices such as /dev/null.
    public var readWrite: [String]
    /// Whether it may connect to TCP servers (the `com.apple.security.network.client`
    /// entitlement). Binding a TCP port is never allowed.
    public var mayConnect: Bool
    /// The most descriptors it may have open (RLIMIT_NOFILE).
    public var openFiles: UInt64
    /// The most processes and threads it may have at once (RLIMIT_NPROC), or nil for no
    /// limit. Set only where it has a user namespace of its own, where the kernel counts
    /// just its own; elsewhere the limit would count all the user's processes. Root is exempt.
    public var processes: UInt64?
    /// Whether it may write core dumps (RLIMIT_CORE); they would hold the user's data.
    public var coreDumps: Bool
    /// Folders it must not reach at all, even where Landlock doesn't govern the call:
    /// covered with an empty, read-only folder in its mount namespace. appexd's runtime
    /// folder is one, since connecting to a Unix socket by its path is outside Landlock.
    public var hidden: [String]
    /// Folders whose insides others may change: a bundle's author, an extension, another
    /// member of an app group. A path granted below one is opened from it, beneath it and
    /// through no symbolic link, and must be a folder; else the launch fails and names it.
    /// So a link planted on the way (`Frameworks → /`) can never widen a grant: the profile
    /// grants what its path says, whatever is on disk. The folders themselves are trusted.
    public var confined: [String]

    public init(executable: [String] = [], readOnly: [String] = [], readWrite: [String] = [], mayConnect: Bool = false,
                openFiles: UInt64 = 1024, processes: UInt64? = nil, coreDumps: Bool = false, hidden: [String] = [],
                confined: [String] = []) {
        self.executable = executable
        self.readOnly = readOnly
        self.readWrite = readWrite
        self.mayConnect = mayConnect
        self.openFiles = openFiles
        self.processes = processes
        self.coreDumps = coreDumps
        self.hidden = hidden
        self.confined = confined
    }

    /// The folder of ``confined`` that `path` lies strictly below, if any.
    public func confiningFolder(of path: String) -> String? {
        confined.first { folder in
            let inside = folder.hasSuffix("/") ? folder : folder + "/"
            return path.hasPrefix(inside) && path.count > inside.count
        }
    }

    /// The system paths every dynamically linked program runs from: its libraries and the
    /// loader, and the Swift toolchain under /opt.
    public static let systemExecutable = ["/usr", "/bin", "/lib", "/lib64", "/sbin", "/opt"]
    /// The system paths every program reads: /etc (the loader's cache, time zones, users),
    /// and the random and zero devices. ``Sandbox`` adds /proc: all of the process's own,
    /// which shows only its namespace, or else the system's /proc/self.
    public static let systemReadOnly = ["/etc", "/dev/urandom", "/dev/random", "/dev/zero"]
    /// The system paths every program writes: /dev/null.
    public static let systemReadWrite = ["/dev/null"]
}
