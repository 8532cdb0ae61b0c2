import CAppexSystem
import Glibc

/// Anonymous, sealed memory files (memfd): a way to hand bytes to another process as a
/// descriptor, so the receiver maps or reads them and nothing is copied through a socket.
public enum MemoryFile {
    /// A sealed memory file holding `bytes`: neither side can change it afterwards.
    public static func sealed(name: String, bytes: UnsafeRawBufferPointer) throws(SystemError) -> FileDescriptor {
        let raw = try retrying("memfd_create", subject: name) { appex_memfd_create(name) }
        let file = FileDescriptor(owning: raw)
        var written = 0
        while written < bytes.count {
            written += try retrying("write", subject: name) { Glibc.write(raw, bytes.baseAddress! + written, bytes.count - written) }
        }
        _ = try retrying("fcntl", subject: "F_ADD_SEALS") { appex_memfd_seal(raw) }
        return file
    }

    /// A sealed memory file holding what `source` gives until its end, such as a pipe's
    /// bytes to hand on as a file: read straight into the file, never held twice. More than
    /// `limit` bytes is refused (EFBIG).
    public static func sealed(name: String, readingToEndOf source: Int32, limit: Int) throws(SystemError) -> FileDescriptor {
        let raw = try retrying("memfd_create", subject: name) { appex_memfd_create(name) }
        let file = FileDescriptor(owning: raw)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let count = try retrying("read", subject: name) { buffer.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress, $0.count) } }
            if count == 0 { break }
            total += count
            guard total <= limit else { throw SystemError("read more than \(limit) bytes into", subject: name, errno: EFBIG) }
            try file.write(buffer[..<count])
        }
        _ = try retrying("fcntl", subject: "F_ADD_SEALS") { appex_memfd_seal(raw) }
        return file
    }
}
