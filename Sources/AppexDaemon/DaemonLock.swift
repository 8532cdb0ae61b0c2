import AppexSystem
import Foundation

/// The lock that makes one daemon the only one serving a home. It is held for the daemon's
/// life and released by the kernel when the process ends, however it ends.
final class DaemonLock: Sendable {
    private let file: FileDescriptor

    private init(file: FileDescriptor) { self.file = file }

    /// Takes the lock at `path`, or returns nil if another process holds it.
    static func acquire(at path: String) throws(SystemError) -> DaemonLock? {
        let file = try FileDescriptor.open(path, flags: O_RDWR | O_CREAT, mode: 0o600)
        guard flock(file.rawValue, LOCK_EX | LOCK_NB) == 0 else {
            if errno == EWOULDBLOCK { return nil }
            throw SystemError("flock", subject: path)
        }
        return DaemonLock(file: file)
    }
}
