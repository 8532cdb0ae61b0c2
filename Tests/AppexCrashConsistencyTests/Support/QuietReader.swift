import AppexSystem
import Foundation
import GRDB
import Glibc

/// Reads an SQLite database without changing anything (a read-only connection), while
/// another process waits midway through changing it. So a test can see what a reader would
/// see at that moment, or learn that no reader could get in.
enum QuietReader {
    /// No reader could read the database at this moment: its writer holds it while it
    /// builds the WAL index (opening) or checkpoints (closing).
    struct Unobservable: Error, CustomStringConvertible {
        var description: String
    }

    /// The byte of the `-shm` file that a writer locks (WAL_WRITE_LOCK, the first of
    /// os_unix.c's shared-memory locks, at 120).
    private static let writeLockByte = 120

    /// Runs `body` on a read-only connection to the database at `url`. Throws
    /// ``Unobservable`` if its writer keeps readers out.
    static func read<T>(_ url: URL, _ body: (Database) throws -> T) throws -> T {
        try refuseWhileIndexIsBuilt(url)
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let database = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? database.close() }
            return try database.read(body)
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_PROTOCOL].contains(error.resultCode) {
            throw Unobservable(description: "\(url.path): \(error)")
        }
    }

    /// Throws ``Unobservable`` if the WAL index of `database` is being built: its header is
    /// not yet whole (its two copies differ, or it is not marked initialized) while another
    /// process holds the write lock. A reader would retry for about ten seconds, and give up
    /// with SQLITE_PROTOCOL.
    private static func refuseWhileIndexIsBuilt(_ database: URL) throws {
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
            throw Unobservable(description: "\(database.path)'s WAL index is being built by pid \(probe.l_pid)")
        }
    }
}
