import Glibc

/// What a file is, as far as telling whether something changed it: its identity, size, and
/// times of modification and change, to the nanosecond.
public struct FileState: Sendable, Equatable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    /// Nanoseconds since the epoch.
    public let modified: Int64
    public let changed: Int64

    /// The item at `path` now, not following a final link; nil if there is none.
    public init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The file `descriptor` is open on, now; nil if it can't be read.
    public init?(_ descriptor: FileDescriptor) {
        var status = stat()
        guard fstat(descriptor.rawValue, &status) == 0 else { return nil }
        self.init(status)
    }

    private init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
    }
}
