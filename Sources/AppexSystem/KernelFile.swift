import Glibc

/// A file the kernel writes as it is read, such as those in /proc, /sys and a cgroup's
/// folder: its size says 0 whatever it holds, so it is read to its end, a page at a time.
///
/// Foundation's `String(contentsOfFile:)` and `Data(contentsOf:)` won't do for these, nor
/// for any file that may be empty: of a file whose size says 0 they read only what the
/// first read gives (a page or so of /proc/PID/smaps), and they leak a 4 KiB buffer each
/// time they find a file empty. appexd read an extension's emptied `cgroup.procs` that way
/// after each request: 4 KiB a request (docs/reliability.md, "Load").
public enum KernelFile {
    /// The file's text, read to its end (or to its first `limit` bytes), or nil if it can't
    /// be opened or read, as when the process it describes is gone.
    public static func text(at path: String, limit: Int = 1 << 20) -> String? {
        guard let file = try? FileDescriptor.open(path) else { return nil }
        var bytes: [UInt8] = []
        var page = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let wanted = min(page.count, limit - bytes.count)
            guard let got = try? page.withUnsafeMutableBytes({ buffer throws(SystemError) in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(wanted)), at: bytes.count)
            }) else { return nil }
            if got == 0 { break }
            bytes += page.prefix(got)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
