import Foundation
import GRDB

/// A SQLite database shared by the processes of an app group, opened the way
/// docs/app-groups.md recommends.
enum SharedDatabase {
    /// A pool on `path`: WAL, so readers never wait for the writer, and a busy timeout,
    /// so a writer waits for another process's write instead of failing with SQLITE_BUSY.
    /// GRDB begins every write transaction IMMEDIATE, so no transaction has to upgrade
    /// from reading to writing, which no timeout can rescue. Opening is tried again while
    /// SQLite answers `SQLITE_BUSY` at once: processes that create the database at the same
    /// moment each switch it to WAL, which no timeout rescues either.
    static func open(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let pool = try openPool(path, configuration)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, writer TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
                INSERT OR IGNORE INTO counter (id, value) VALUES (1, 0);
                """)
        }
        return pool
    }

    private static func openPool(_ path: String, _ configuration: Configuration) throws -> DatabasePool {
        let giveUp = ContinuousClock.now + .seconds(10)
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < giveUp {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    /// One write transaction: a row by `writer`, and 1 added to the counter, read and then written.
    static func add(to database: DatabasePool, by writer: String) throws {
        try database.write { db in
            try db.execute(sql: "INSERT INTO note (writer) VALUES (?)", arguments: [writer])
            let value = try Int.fetchOne(db, sql: "SELECT value FROM counter WHERE id = 1") ?? 0
            try db.execute(sql: "UPDATE counter SET value = ? WHERE id = 1", arguments: [value + 1])
        }
    }
}
