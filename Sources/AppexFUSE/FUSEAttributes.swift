import CFUSEKernel
import Glibc

/// What `stat` shows of a node on the mount.
public struct FUSEAttributes: Sendable, Equatable {
    /// The node's number, which is also its inode number on the mount.
    public var node: UInt64
    public var size: UInt64
    /// The file type and permission bits, as `st_mode` has them.
    public var mode: UInt32
    public var linkCount: UInt32
    public var userID: UInt32
    public var groupID: UInt32
    public var accessed: FUSETime
    public var modified: FUSETime
    public var changed: FUSETime

    public init(node: UInt64, size: UInt64, mode: UInt32, linkCount: UInt32 = 1, userID: UInt32, groupID: UInt32,
                accessed: FUSETime, modified: FUSETime, changed: FUSETime) {
        self.node = node
        self.size = size
        self.mode = mode
        self.linkCount = linkCount
        self.userID = userID
        self.groupID = groupID
        self.accessed = accessed
        self.modified = modified
        self.changed = changed
    }

    /// Whether the node is a folder.
    public var isDirectory: Bool { mode & Glibc.S_IFMT == Glibc.S_IFDIR }

    var kernel: fuse_attr {
        var attr = fuse_attr()
        attr.ino = node
        attr.size = size
        attr.blocks = (size + 511) / 512
        attr.atime = UInt64(bitPattern: accessed.seconds)
        attr.atimensec = accessed.nanoseconds
        attr.mtime = UInt64(bitPattern: modified.seconds)
        attr.mtimensec = modified.nanoseconds
        attr.ctime = UInt64(bitPattern: changed.seconds)
        attr.ctimensec = changed.nanoseconds
        attr.mode = mode
        attr.nlink = linkCount
        attr.uid = userID
        attr.gid = groupID
        attr.blksize = 4096
        return attr
    }
}

/// A file time, to the nanosecond, as `stat` shows it.
public struct FUSETime: Sendable, Equatable, Comparable {
    public var seconds: Int64
    public var nanoseconds: UInt32

    public init(seconds: Int64, nanoseconds: UInt32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The time now, by the real-time clock.
    public static var now: FUSETime {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return FUSETime(seconds: Int64(time.tv_sec), nanoseconds: UInt32(time.tv_nsec))
    }

    public static func < (lhs: FUSETime, rhs: FUSETime) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}

/// What a `setattr` changes: `chmod`, `truncate`, `utimensat` and their kin. Only the fields
/// given are set.
public struct FUSEAttributeChanges: Sendable, Equatable {
    public var mode: UInt32?
    public var userID: UInt32?
    public var groupID: UInt32?
    public var size: UInt64?
    /// A time to set; ``FUSETimeChange/now`` for the present.
    public var accessed: FUSETimeChange?
    public var modified: FUSETimeChange?
    /// The open file it was made through, if any (`ftruncate`).
    public var handle: UInt64?

    public init(mode: UInt32? = nil, userID: UInt32? = nil, groupID: UInt32? = nil, size: UInt64? = nil,
                accessed: FUSETimeChange? = nil, modified: FUSETimeChange? = nil, handle: UInt64? = nil) {
        self.mode = mode
        self.userID = userID
        self.groupID = groupID
        self.size = size
        self.accessed = accessed
        self.modified = modified
        self.handle = handle
    }

    init(_ body: fuse_setattr_in) {
        func has(_ flag: Int32) -> Bool { body.valid & UInt32(flag) != 0 }
        mode = has(FATTR_MODE) ? body.mode : nil
        userID = has(FATTR_UID) ? body.uid : nil
        groupID = has(FATTR_GID) ? body.gid : nil
        size = has(FATTR_SIZE) ? body.size : nil
        accessed = has(FATTR_ATIME_NOW) ? .now
            : has(FATTR_ATIME) ? .at(FUSETime(seconds: Int64(bitPattern: body.atime), nanoseconds: body.atimensec)) : nil
        modified = has(FATTR_MTIME_NOW) ? .now
            : has(FATTR_MTIME) ? .at(FUSETime(seconds: Int64(bitPattern: body.mtime), nanoseconds: body.mtimensec)) : nil
        handle = has(FATTR_FH) ? body.fh : nil
    }
}

/// A time a `setattr` sets.
public enum FUSETimeChange: Sendable, Equatable {
    case now
    case at(FUSETime)

    /// The time it stands for.
    public var time: FUSETime {
        switch self {
        case .now: .now
        case let .at(time): time
        }
    }
}
