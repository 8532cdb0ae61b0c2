import Foundation
import Glibc
import GRDB

/// Opens the registry's database so that any number of processes may do so at the same
/// moment, even while it is being created: appexd, `appex` commands, appex-transfers.
///
/// SQLite's busy timeout covers a write that meets another process's write, but not the two
/// moments when processes create the database together:
/// - each switches the new file to WAL, and SQLite fails all but one at once, whatever the
///   timeout; the next try finds it WAL already;
/// - GRDB's migrator reads which migrations are applied before it begins its transaction,
///   so two processes would both run the first ("table app already exists"). A `flock` on
///   the database's folder lets one migrate at a time, and the next finds nothing to do.
enum RegistryDatabase {
    /// How long a process waits for others to let it open the database.
    static let patience: TimeInterval = 60

    static func open(_ url: URL, migrator: DatabaseMigrator) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(patience)
        configuration.label = "appex.registry"
        let database = try openPool(at: url.path, configuration: configuration)
        if try database.read(migrator.hasCompletedMigrations) { return database }
        let folder = try FolderLock(url.deletingLastPathComponent().path)
        defer { folder.release() }
        try migrator.migrate(database)
        return database
    }

    private static func openPool(at path: String, configuration: Configuration) throws -> DatabasePool {
        let giveUp = Date().addingTimeInterval(patience)
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < giveUp {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    /// An exclusive `flock` on a folder, waited for. (Not on the database file: closing any
    /// descriptor of it would drop SQLite's own locks.)
    private struct FolderLock {
        let descriptor: Int32

        init(_ path: String) throws {
            descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let code = errno
                    Glibc.close(descriptor)
                    throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
                }
            }
        }

        func release() {
            Glibc.close(descriptor)
        }
    }
}
