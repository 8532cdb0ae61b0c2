import Foundation
import GRDB

/// SQLite's own checks of a database after a kill: `PRAGMA integrity_check` and
/// `PRAGMA foreign_key_check`.
enum StoreIntegrity {
    /// Throws ``Damaged`` if either check finds anything wrong with the database at `url`.
    static func check(_ url: URL) throws {
        let (integrity, foreignKeys) = try QuietReader.read(url) { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"), try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count)
        }
        guard integrity == ["ok"], foreignKeys == 0 else { throw Damaged(store: url.path, integrity: integrity, foreignKeyViolations: foreignKeys) }
    }

    /// A database that failed its checks after a kill.
    struct Damaged: Error, CustomStringConvertible {
        var store: String
        var integrity: [String]
        var foreignKeyViolations: Int
        var description: String { "\(store) is damaged: integrity_check says \(integrity), \(foreignKeyViolations) foreign key violations" }
    }
}
