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
}
