import CAppexSystem

/// A Landlock ruleset: the rights it handles, and so refuses unless a rule grants them, and
/// the rules, each granting rights beneath a path. See landlock(7).
public struct LandlockRuleset: Sendable, Hashable, Codable {
    /// The ABI version to speak; the rights must be ones it knows.
    public var abi: Int
    public var handledFilesystem: FilesystemAccess
    public var handledNetwork: NetworkAccess
    public var scopes: Scopes
    public var rules: [Rule]

    public init(abi: Int, handledFilesystem: FilesystemAccess, handledNetwork: NetworkAccess = [], scopes: Scopes = [], rules: [Rule] = []) {
        self.abi = abi
        self.handledFilesystem = handledFilesystem
        self.handledNetwork = handledNetwork
        self.scopes = scopes
        self.rules = rules
    }

    /// Rights granted beneath `path`: the folder and everything in it, or the one file.
    public struct Rule: Sendable, Hashable, Codable {
        public var path: String
        public var access: FilesystemAccess
        /// The folder, trusted, that `path` lies in and whose insides others may change, or nil.
        /// Then `path` is opened beneath it and through no symbolic link, and must be a
        /// folder: a link anywhere below this folder fails the launch rather than granting
        /// what it leads to.
        public var confinedTo: String?

        public init(_ path: String, _ access: FilesystemAccess, confinedTo: String? = nil) {
            self.path = path
            self.access = access
            self.confinedTo = confinedTo
        }

        /// `path` relative to ``confinedTo``, if it lies strictly below it: lexically, with no
        /// `.` or `..` component (the kernel refuses a `..` that climbs out anyway).
        var confinedPath: String? {
            guard let confinedTo else { return nil }
            return ConfinedFolder.relativePath(of: path, below: confinedTo)
        }
    }

    /// Filesystem rights, as `LANDLOCK_ACCESS_FS_*` numbers them.
    public struct FilesystemAccess: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let execute = Self(rawValue: 1 << 0)
        public static let writeFile = Self(rawValue: 1 << 1)
        public static let readFile = Self(rawValue: 1 << 2)
        public static let readDirectory = Self(rawValue: 1 << 3)
        public static let removeDirectory = Self(rawValue: 1 << 4)
        public static let removeFile = Self(rawValue: 1 << 5)
        public static let makeCharacterDevice = Self(rawValue: 1 << 6)
        public static let makeDirectory = Self(rawValue: 1 << 7)
        public static let makeRegularFile = Self(rawValue: 1 << 8)
        public static let makeSocket = Self(rawValue: 1 << 9)
        public static let makeFIFO = Self(rawValue: 1 << 10)
        public static let makeBlockDevice = Self(rawValue: 1 << 11)
        public static let makeSymlink = Self(rawValue: 1 << 12)
        /// Linking or renaming a file into another folder (ABI 2).
        public static let refer = Self(rawValue: 1 << 13)
        /// Truncating a file (ABI 3).
        public static let truncate = Self(rawValue: 1 << 14)
        /// ioctl on a device file (ABI 5).
        public static let ioctlDevice = Self(rawValue: 1 << 15)

        /// Reading files and listing folders.
        public static let read: Self = [.readFile, .readDirectory]
        /// Everything that changes files and folders, short of making devices.
        public static let write: Self = [
            .writeFile, .removeDirectory, .removeFile, .makeDirectory, .makeRegularFile, .makeSocket, .makeFIFO,
            .makeSymlink, .refer, .truncate,
        ]

        /// Every filesystem right ABI `abi` knows.
        public static func known(by abi: Int) -> Self {
            switch abi {
            case ..<1: []
            case 1: Self(rawValue: (1 << 13) - 1)
            case 2: Self(rawValue: (1 << 14) - 1)
            case 3, 4: Self(rawValue: (1 << 15) - 1)
            default: Self(rawValue: (1 << 16) - 1)
            }
        }
    }

    /// Network rights (ABI 4).
    public struct NetworkAccess: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let bindTCP = Self(rawValue: 1 << 0)
        public static let connectTCP = Self(rawValue: 1 << 1)
    }

    /// What the sandbox scopes to itself (ABI 6): its processes can't reach outside it.
    public struct Scopes: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        /// Connecting to abstract Unix sockets made outside the sandbox.
        public static let abstractUnixSockets = Self(rawValue: 1 << 0)
        /// Sending signals to processes outside the sandbox.
        public static let signals = Self(rawValue: 1 << 1)
    }

    /// The Landlock ABI this kernel offers, or nil if it offers none (not built in, or
    /// disabled at boot).
    public static var kernelABI: Int? {
        let abi = appex_landlock_abi()
        return abi > 0 ? Int(abi) : nil
    }
}
