public import AppexFileProvider
public import Foundation
import GRDB

/// Changes made on the mount, kept until the provider takes them: items made here, fields
/// changed, and deletions. Each survives restarts, so an upload cut short is made again.
extension ReplicaStore {
    /// The identifier an item made here has until the provider gives it its own.
    static func localIdentifier() -> NSFileProviderItemIdentifier {
        NSFileProviderItemIdentifier("appex-local-\(UUID().uuidString)")
    }

    /// Adds an item made here, named `name` in `parent`: a folder, or an empty file.
    public func addLocal(named name: String, in parent: UInt64, isFolder: Bool) throws -> Entry {
        let identifier = Self.localIdentifier()
        let now = Date().timeIntervalSince1970
        let node: Int64 = try database.write { db in
            try db.execute(sql: """
                INSERT INTO item (identifier, parent, filename, isFolder, size, created, modified, contentVersion, metadataVersion,
                                  writable, listed, localOnly, localContents, pendingFields, changeCount)
                VALUES (?, ?, ?, ?, 0, ?, ?, x'', x'', 1, ?, 1, ?, ?, 1)
                """, arguments: [identifier.rawValue, Int64(parent), name, isFolder, now, now, isFolder, !isFolder,
                                 Int64(Self.createdFields(isFolder: isFolder).rawValue)])
            return db.lastInsertedRowID
        }
        if !isFolder {
            guard FileManager.default.createFile(atPath: contentsURL(node: UInt64(node)).path, contents: nil) else {
                try removeLocally(UInt64(node))
                throw CocoaError(.fileWriteUnknown)
            }
        }
        guard let entry = try entry(node: UInt64(node)) else { throw CocoaError(.fileNoSuchFile) }
        return entry
    }

    /// The fields an item made here carries to the provider.
    static func createdFields(isFolder: Bool) -> NSFileProviderItemFields {
        isFolder ? [.filename, .parentItemIdentifier, .creationDate, .contentModificationDate]
            : [.filename, .parentItemIdentifier, .contents, .creationDate, .contentModificationDate]
    }

    /// Notes that `fields` of `node` changed here; `modified`, when given, is its new
    /// modification date; `contents` that its local copy is now the truth.
    public func markChanged(_ node: UInt64, fields: NSFileProviderItemFields, modified: Date? = nil) throws {
        try database.write { db in
            try db.execute(sql: """
                UPDATE item SET pendingFields = pendingFields | ?, changeCount = changeCount + 1,
                    localContents = localContents OR ?, modified = coalesce(?, modified)
                WHERE node = ?
                """, arguments: [Int64(fields.rawValue), fields.contains(.contents), modified?.timeIntervalSince1970, Int64(node)])
        }
    }

    /// Moves `node` to `name` in `parent`, replacing nothing: the caller has made room.
    public func move(_ node: UInt64, to name: String, in parent: UInt64) throws {
        try database.write { db in
            try db.execute(sql: """
                UPDATE item SET filename = ?, parent = ?, pendingFields = pendingFields | ?, changeCount = changeCount + 1 WHERE node = ?
                """, arguments: [name, Int64(parent), Int64(NSFileProviderItemFields([.filename, .parentItemIdentifier]).rawValue), Int64(node)])
        }
    }

    /// Removes `node` and what is under it from the mount. What the provider has of them is
    /// kept as a deletion to send; what was made here alone just goes.
    public func removeLocally(_ node: UInt64) throws {
        let gone: [Int64] = try database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM item WHERE node = ?", arguments: [Int64(node)]) else { return [] }
            let nodes = try Self.subtree(of: Int64(node), in: db)
            if !(row["localOnly"] as Bool) {
                try db.execute(sql: "INSERT OR REPLACE INTO deletion (identifier, contentVersion, metadataVersion) VALUES (?, ?, ?)",
                               arguments: [row["identifier"] as String, row["contentVersion"] as Data, row["metadataVersion"] as Data])
            }
            try db.execute(sql: "DELETE FROM item WHERE node = ?", arguments: [Int64(node)])
            return nodes
        }
        for node in gone { try? FileManager.default.removeItem(at: contentsURL(node: UInt64(node))) }
    }

    /// What waits for the provider, in the order to send it: items made or changed here, parents
    /// before children, then deletions.
    public func pendingWork() throws -> (changed: [Entry], deletions: [(NSFileProviderItemIdentifier, NSFileProviderItemVersion)]) {
        try database.read { db in
            let changed = try Row.fetchAll(db, sql: "\(Self.select) WHERE item.localOnly OR item.pendingFields != 0 ORDER BY item.node").map(Self.entry)
            let deletions = try Row.fetchAll(db, sql: "SELECT * FROM deletion ORDER BY rowid").map { row in
                (NSFileProviderItemIdentifier(row["identifier"] as String),
                 NSFileProviderItemVersion(contentVersion: row["contentVersion"], metadataVersion: row["metadataVersion"]))
            }
            return (changed, deletions)
        }
    }

    /// Applies the provider's answer to the upload of `entry`'s changes. A change made here
    /// since (its ``Entry/changeCount`` moved on) stays pending, to be sent in turn.
    public func confirm(_ entry: Entry, answer: ProviderChange) throws {
        var removed = false
        try database.write { db in
            let count = try Int.fetchOne(db, sql: "SELECT changeCount FROM item WHERE node = ?", arguments: [Int64(entry.node)])
            guard let count else { return }
            let unchanged = count == entry.changeCount
            guard let item = answer.item else {
                // The provider deleted it, or refused the import: it goes from the mount.
                try db.execute(sql: "DELETE FROM item WHERE node = ?", arguments: [Int64(entry.node)])
                removed = true
                return
            }
            // Another row holding the identifier the provider gave is the same item: it goes.
            try db.execute(sql: "DELETE FROM item WHERE identifier = ? AND node != ?", arguments: [item.identifier.rawValue, Int64(entry.node)])
            try db.execute(sql: """
                UPDATE item SET identifier = ?, contentVersion = ?, metadataVersion = ?, localOnly = 0, lastError = NULL,
                    pendingFields = CASE WHEN ? THEN 0 ELSE pendingFields END,
                    localContents = CASE WHEN ? THEN 0 ELSE localContents END,
                    materializedVersion = CASE WHEN ? THEN NULL WHEN isFolder THEN NULL ELSE ? END
                WHERE node = ?
                """, arguments: [item.identifier.rawValue, item.contentVersion, item.metadataVersion, unchanged, unchanged,
                                 answer.shouldFetchContents && unchanged, item.contentVersion, Int64(entry.node)])
        }
        if removed { try? FileManager.default.removeItem(at: contentsURL(node: entry.node)) }
    }

    /// The deletion of `identifier` is done, or refused: either way it is no longer pending.
    /// A refused one comes back with the folders' next listings, which are all read afresh.
    public func finishDeletion(of identifier: NSFileProviderItemIdentifier, refused: Bool) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM deletion WHERE identifier = ?", arguments: [identifier.rawValue])
            if refused { try db.execute(sql: "UPDATE item SET listed = 0 WHERE isFolder") }
        }
    }

    /// Records why sending `entry`'s changes, or a deletion, failed; it is tried again later.
    public func recordFailure(_ message: String, node: UInt64? = nil, deletion: NSFileProviderItemIdentifier? = nil) throws {
        try database.write { db in
            if let node { try db.execute(sql: "UPDATE item SET lastError = ? WHERE node = ?", arguments: [message, Int64(node)]) }
            if let deletion { try db.execute(sql: "UPDATE deletion SET lastError = ? WHERE identifier = ?", arguments: [message, deletion.rawValue]) }
        }
    }
}
