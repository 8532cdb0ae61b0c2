public import Glibc

/// Which file a path or descriptor names: its device and inode. A file renamed over another
/// has an identity of its own, even if its contents are the same; a number may be reused
/// only after the file that had it is gone.
public struct FileIdentity: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64

    /// The identity of the file `status` describes, from stat or fstat.
    public init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    /// The identity of the file at `path`, following links, or nil if there is none.
    public init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }
}

extension FileDescriptor {
    /// The identity of the open file, from fstat.
    public func identity() throws(SystemError) -> FileIdentity {
        var status = stat()
        let raw = rawValue
        _ = try retrying("fstat") { fstat(raw, &status) }
        return FileIdentity(status)
    }
}
