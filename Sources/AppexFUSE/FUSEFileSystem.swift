public import AppexSystem

/// A file system served on a FUSE mount, node by node, as the kernel asks.
///
/// Nodes are numbers the file system chooses; ``FUSEFileSystem/rootNode`` is the mount's
/// folder. Each entry a call returns (``lookup(_:in:)``, ``create(_:in:mode:flags:caller:)``,
/// ``makeDirectory(_:in:mode:caller:)``) counts one lookup of its node, and the kernel gives
/// them back with ``forget(_:lookups:)``: until then the number must keep naming that node.
///
/// The calls are made concurrently, from tasks, and each within the server's deadline: an
/// answer later than that is dropped, and the caller's system call fails with ETIMEDOUT.
/// Throw a ``FUSEError`` for the `errno` the caller should get; any other error is EIO.
public protocol FUSEFileSystem: Sendable {
    func lookup(_ name: String, in parent: UInt64) async throws -> FUSEEntry
    func forget(_ node: UInt64, lookups: UInt64)
    func attributes(of node: UInt64) async throws -> FUSEAttributes
    func setAttributes(_ changes: FUSEAttributeChanges, of node: UInt64) async throws -> FUSEAttributes

    /// Opens a file; returns the handle later calls on it carry.
    func open(_ node: UInt64, flags: Int32) async throws -> FUSEOpenFile
    /// Makes a file named `name` in `parent` and opens it.
    func create(_ name: String, in parent: UInt64, mode: UInt32, flags: Int32, caller: FUSECaller) async throws -> (FUSEEntry, FUSEOpenFile)
    /// Up to `count` bytes from `offset`; fewer only at the end of the file.
    func read(_ node: UInt64, handle: UInt64, at offset: UInt64, count: Int) async throws -> [UInt8]
    /// Writes `bytes` at `offset`; returns how many were written.
    func write(_ bytes: [UInt8], to node: UInt64, handle: UInt64, at offset: UInt64) async throws -> Int
    /// A `close` of one descriptor of the open file (there may be others, from `dup` or `fork`).
    func flush(_ node: UInt64, handle: UInt64) async throws
    /// The last descriptor of the open file is closed.
    func release(_ node: UInt64, handle: UInt64) async
    func synchronize(_ node: UInt64, handle: UInt64) async throws

    /// Every entry of a folder, `.` and `..` left out.
    func entries(of directory: UInt64) async throws -> [FUSEDirectoryEntry]
    func makeDirectory(_ name: String, in parent: UInt64, mode: UInt32, caller: FUSECaller) async throws -> FUSEEntry
    func unlink(_ name: String, in parent: UInt64) async throws
    func removeDirectory(_ name: String, in parent: UInt64) async throws
    /// Moves `name` in `parent` to `newName` in `newParent`, replacing what is there unless
    /// `options` says otherwise.
    func rename(_ name: String, in parent: UInt64, to newName: String, in newParent: UInt64, options: FUSERenameOptions) async throws
    func statistics() async throws -> FUSEStatistics
}

extension FUSEFileSystem {
    /// The node number of the mount's own folder, as the kernel numbers it.
    public static var rootNode: UInt64 { 1 }
}

/// A node the kernel may now name, with its attributes, and how long it may trust both.
public struct FUSEEntry: Sendable, Equatable {
    public var attributes: FUSEAttributes
    /// How long the kernel may keep the name → node answer and the attributes before asking
    /// again. Zero makes every `stat` reach the file system.
    public var validity: Duration

    public init(attributes: FUSEAttributes, validity: Duration = .seconds(1)) {
        self.attributes = attributes
        self.validity = validity
    }
}

/// An open file: its handle, how the kernel should cache its pages, and the local file that
/// holds its contents, if there is one.
public struct FUSEOpenFile: Sendable {
    public var handle: UInt64
    /// Keep the pages cached from an earlier open: the contents have not changed since.
    public var keepsCache: Bool
    /// Bypass the page cache: every read and write reaches the file system.
    public var directIO: Bool
    /// A descriptor of the file that holds the contents. Where the kernel offers passthrough
    /// (Linux 6.9) and the server may use it (CAP_SYS_ADMIN), the kernel reads and writes this
    /// file itself, and the file system sees no `read` or `write` of the open file; elsewhere
    /// they reach the file system as usual.
    public var backing: FileDescriptor?

    public init(handle: UInt64, keepsCache: Bool = false, directIO: Bool = false, backing: FileDescriptor? = nil) {
        self.handle = handle
        self.keepsCache = keepsCache
        self.directIO = directIO
        self.backing = backing
    }
}

/// One name in a folder.
public struct FUSEDirectoryEntry: Sendable, Equatable {
    public var name: String
    public var node: UInt64
    /// The file type bits of `st_mode` (S_IFREG, S_IFDIR).
    public var type: UInt32

    public init(name: String, node: UInt64, type: UInt32) {
        self.name = name
        self.node = node
        self.type = type
    }
}

/// What `statfs` (`df`) shows of the mount.
public struct FUSEStatistics: Sendable, Equatable {
    public var blocks: UInt64
    public var freeBlocks: UInt64
    public var files: UInt64
    public var freeFiles: UInt64
    public var blockSize: UInt32 = 4096
    public var maximumNameLength: UInt32 = 255

    public init(blocks: UInt64, freeBlocks: UInt64, files: UInt64, freeFiles: UInt64) {
        self.blocks = blocks
        self.freeBlocks = freeBlocks
        self.files = files
        self.freeFiles = freeFiles
    }
}

/// How a rename treats what its new name already names (renameat2's flags).
public struct FUSERenameOptions: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Fail with EEXIST rather than replace (RENAME_NOREPLACE).
    public static let noReplace = FUSERenameOptions(rawValue: 1 << 0)
    /// Swap the two names (RENAME_EXCHANGE).
    public static let exchange = FUSERenameOptions(rawValue: 1 << 1)
}
