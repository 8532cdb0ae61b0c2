import Glibc

/// The lock that makes one process the only one serving something, such as a home's daemon.
/// It is a `flock` on a file, held until ``release()`` or until the process ends, however it
/// ends: the kernel drops it. The holder's pid is written in the file, for others to read.
///
/// ```swift
/// guard let lock = try ProcessLock.acquire(at: path) else { return }  // another holds it
/// ```
public final class ProcessLock: Sendable {
    private let file: FileDescriptor

    private init(file: FileDescriptor) { self.file = file }

    /// Takes the lock at `path` and writes this process's pid in it, or returns nil if
    /// another process holds it.
    public static func acquire(at path: String) throws(SystemError) -> ProcessLock? {
        let file = try FileDescriptor.open(path, flags: O_RDWR | O_CREAT, mode: 0o600)
        guard flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 else {
            if errno == EWOULDBLOCK { return nil }
            throw SystemError("flock", subject: path)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(file.rawValue, 0)
        _ = pid.withUnsafeBytes { pwrite(file.rawValue, $0.baseAddress, $0.count, 0) }
        return ProcessLock(file: file)
    }

    /// The pid of the process holding the lock at `path`, or nil if none holds it.
    public static func holder(at path: String) -> Int32? {
        guard let file = try? FileDescriptor.open(path, flags: O_RDONLY) else { return nil }
        // A shared lock is refused only while someone holds the exclusive one.
        guard flock(file.rawValue, LOCK_SH | LOCK_NB) != 0, errno == EWOULDBLOCK,
              let bytes = try? file.read(upTo: 32, at: 0)
        else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.flatMap { Int32($0) }
    }

    /// Releases the lock now; the process goes on without it.
    public func release() {
        file.close()
    }
}
