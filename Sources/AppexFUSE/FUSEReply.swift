import CFUSEKernel
import Glibc

/// An answer to a kernel request, before its header: an error, nothing, or the bytes the
/// operation returns (a kernel structure, file contents, packed folder entries).
enum FUSEReply: Sendable {
    case error(Int32)
    case empty
    case bytes([UInt8])

    static func error(_ error: any Error) -> FUSEReply {
        .error((error as? FUSEError)?.errno ?? EIO)
    }

    /// The bytes of one kernel structure, or of several laid end to end.
    static func structures<each T: BitwiseCopyable>(_ value: repeat each T) -> FUSEReply {
        var bytes: [UInt8] = []
        for part in repeat each value {
            withUnsafeBytes(of: part) { bytes += $0 }
        }
        return .bytes(bytes)
    }

    static func entry(_ entry: FUSEEntry) -> FUSEReply {
        .structures(entry.kernel)
    }

    static func attributes(_ attributes: FUSEAttributes, validity: Duration) -> FUSEReply {
        var out = fuse_attr_out()
        (out.attr_valid, out.attr_valid_nsec) = validity.kernelSecondsAndNanoseconds
        out.attr = attributes.kernel
        return .structures(out)
    }


    /// Folder entries from `start` on (the `offset` the kernel asked from), as many as fit in
    /// `limit` bytes. Each entry's offset is the one to ask from for the entry after it.
    static func directory(_ entries: [FUSEDirectoryEntry], from start: UInt64, limit: Int) -> FUSEReply {
        var bytes: [UInt8] = []
        var index = Int(clamping: start)
        while index < entries.count {
            let entry = entries[index]
            let name = Array(entry.name.utf8)
            let size = (MemoryLayout<fuse_dirent>.size + name.count + 7) & ~7
            guard bytes.count + size <= limit else { break }
            var dirent = fuse_dirent()
            dirent.ino = entry.node
            dirent.off = UInt64(index + 1)
            dirent.namelen = UInt32(name.count)
            dirent.type = entry.type >> 12
            withUnsafeBytes(of: dirent) { bytes += $0.prefix(MemoryLayout<fuse_dirent>.size) }
            bytes += name
            bytes += repeatElement(0, count: size - MemoryLayout<fuse_dirent>.size - name.count)
            index += 1
        }
        return .bytes(bytes)
    }
}

extension FUSEEntry {
    var kernel: fuse_entry_out {
        var out = fuse_entry_out()
        out.nodeid = attributes.node
        (out.entry_valid, out.entry_valid_nsec) = validity.kernelSecondsAndNanoseconds
        (out.attr_valid, out.attr_valid_nsec) = validity.kernelSecondsAndNanoseconds
        out.attr = attributes.kernel
        return out
    }
}

extension FUSEOpenFile {
    /// The answer to an open; with `backing`, the id of a backing file the kernel reads and
    /// writes itself (the field after `open_flags` since 7.40). A file passed through has no
    /// pages of its own to keep, and the kernel fails its open (EIO) if asked to keep them.
    func kernel(backing: Int32? = nil) -> fuse_open_out {
        var out = fuse_open_out()
        out.fh = handle
        if let backing {
            out.open_flags = UInt32(APPEX_FOPEN_PASSTHROUGH)
            out.padding = UInt32(bitPattern: backing)
        } else {
            out.open_flags = (keepsCache ? UInt32(FOPEN_KEEP_CACHE) : 0) | (directIO ? UInt32(FOPEN_DIRECT_IO) : 0)
        }
        return out
    }
}

extension Duration {
    /// Seconds and the nanoseconds beyond them, as the kernel's validity fields take them.
    var kernelSecondsAndNanoseconds: (UInt64, UInt32) {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return (0, 0) }
        return (UInt64(seconds), UInt32(attoseconds / 1_000_000_000))
    }
}
