import AppexSystem
import Foundation
import Glibc

/// What SQLite's WAL index says of a database, read from outside: so a test that reads a
/// database while another process waits midway through changing it can tell the moment when
/// no reader could get in, instead of waiting ten seconds for SQLITE_PROTOCOL.
enum SQLiteLocks {
    /// The byte of the `-shm` file that a writer locks (WAL_WRITE_LOCK, the first of
    /// os_unix.c's shared-memory locks, at 120).
    private static let writeLockByte = 120

    /// Throws EBUSY if the WAL index of `database` is being built: its header is not yet
    /// whole (its two copies differ, or it is not marked initialized) while another process
    /// holds the write lock. A reader then retries for about ten seconds and gives up.
    static func refuseWhileIndexIsBuilt(_ database: URL) throws {
        let shm = database.path + "-shm"
        let descriptor = open(shm, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return } // no index yet: the reader builds it
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 96)
        let read = pread(descriptor, &header, header.count, 0)
        // WalIndexHdr: 48 bytes, written twice; isInit is its 13th byte.
        if read == header.count, header[12] == 1, header[0..<48] == header[48..<96] { return }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = off_t(writeLockByte)
        probe.l_len = 1
        guard fcntl(descriptor, F_GETLK, &probe) == 0 else { throw SystemError("fcntl F_GETLK", subject: shm) }
        if probe.l_type != Int16(F_UNLCK) {
            throw SystemError("read the database", subject: "\(database.path)'s WAL index is being built by pid \(probe.l_pid)", errno: EBUSY)
        }
    }
}
