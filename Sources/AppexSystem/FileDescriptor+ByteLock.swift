import CAppexSystem
import Glibc

extension FileDescriptor {
    /// How a byte is locked: by many descriptions at once, or by one alone.
    public enum ByteLockMode: Sendable, Hashable, Comparable {
        case shared
        case exclusive
    }

    /// Locks the byte at `offset`, waiting until no other open file description holds a
    /// conflicting lock on it, in this process or another.
    ///
    /// The lock is the open file description's (an OFD lock), so each `open` of the file
    /// is its own holder, and two threads that open it are as separate as two processes.
    /// Locks taken through this descriptor never conflict with each other; taking one on
    /// a byte already held converts it. All are dropped when the description is closed or
    /// its process dies. The offset need not lie within the file: an empty file can carry
    /// a lock for every value of a 63-bit hash.
    public func lockByte(at offset: Int64, _ mode: ByteLockMode) throws(SystemError) {
        let raw = rawValue
        _ = try retrying("fcntl(F_OFD_SETLKW)") { appex_lock_byte(raw, offset, mode == .exclusive ? 1 : 0, 1) }
    }

    /// Lets go of this open file description's lock on the byte at `offset`, if it holds one.
    public func unlockByte(at offset: Int64) throws(SystemError) {
        let raw = rawValue
        _ = try retrying("fcntl(F_OFD_SETLK, F_UNLCK)") { appex_unlock_byte(raw, offset) }
    }

    /// Locks the byte at `offset` if no other open file description holds a conflicting
    /// lock on it; returns false, without waiting, if one does.
    public func tryLockByte(at offset: Int64, _ mode: ByteLockMode) throws(SystemError) -> Bool {
        let raw = rawValue
        while appex_lock_byte(raw, offset, mode == .exclusive ? 1 : 0, 0) != 0 {
            switch errno {
            case EINTR: continue
            case EAGAIN, EACCES: return false
            default: throw SystemError("fcntl(F_OFD_SETLK)")
            }
        }
        return true
    }
}
