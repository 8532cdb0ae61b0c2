public import Foundation
import GRDB

extension Registry {
    /// Records that the user picked the extension `identifier` in a host's list, at `date`, so
    /// hosts can offer it first next time (``recentlyPicked(among:limit:)``).
    public func recordPick(of identifier: String, at date: Date = Date()) throws(RegistryError) {
        // No cached answer depends on picks, so the generation stays.
        try write("record the pick of \(identifier)", bumpsGeneration: false) { db in
            let canonical = try Self.requireExtension(identifier, db)
            try db.execute(sql: """
                INSERT INTO extensionPick (extensionIdentifier, lastPickedAt, pickCount) VALUES (?, ?, 1)
                ON CONFLICT(extensionIdentifier) DO UPDATE SET lastPickedAt = excluded.lastPickedAt, pickCount = pickCount + 1
                """, arguments: [canonical, date])
        }
    }

    /// The extensions among `identifiers` that the user has picked, the most recent first, at
    /// most `limit`, spelled as in `identifiers`.
    public func recentlyPicked(among identifiers: [String], limit: Int = 3) throws(RegistryError) -> [String] {
        guard !identifiers.isEmpty, limit > 0 else { return [] }
        var arguments = StatementArguments(identifiers)
        arguments += [limit]
        let picked = try read("read the recent picks") { db in
            try String.fetchAll(db, sql: """
                SELECT extensionIdentifier FROM extensionPick WHERE extensionIdentifier IN (\(databaseQuestionMarks(count: identifiers.count)))
                ORDER BY lastPickedAt DESC, extensionIdentifier LIMIT ?
                """, arguments: arguments)
        }
        return picked.compactMap { found in identifiers.first { $0.lowercased() == found.lowercased() } }
    }
}
