public import AppexFileProvider
public import Foundation
import GRDB

/// A domain's replica on disk: every item the provider listed, each with the node number the
/// mount shows it by, and the contents fetched so far. It outlives the mount, appexd and the
/// machine's restarts, so a file fetched once is read again without the provider.
///
/// One SQLite database, `replica.sqlite`, beside a `Contents` folder of one file per
/// materialised item, named by its node.
public final class ReplicaStore: Sendable {
    /// The replica's folder.
    public let folder: URL
    let database: DatabaseQueue

    /// The node of the domain's root folder, as FUSE numbers its root.
    public static let rootNode: UInt64 = 1

    public init(folder: URL) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Contents"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // WAL, and a wait for a lock: `appex files` reads the replica while the mount writes it.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        database = try DatabaseQueue(path: folder.appendingPathComponent("replica.sqlite").path, configuration: configuration)
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("items") { db in
            try db.execute(sql: """
                CREATE TABLE item (
                    node INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: the kernel may still hold a node that went
                    identifier TEXT NOT NULL UNIQUE,
                    parent INTEGER REFERENCES item(node) ON DELETE CASCADE,
                    filename TEXT NOT NULL,
                    isFolder BOOLEAN NOT NULL,
                    size INTEGER NOT NULL,
                    created DOUBLE,
                    modified DOUBLE,
                    contentVersion BLOB NOT NULL,
                    metadataVersion BLOB NOT NULL,
                    writable BOOLEAN NOT NULL,
                    listed BOOLEAN NOT NULL DEFAULT 0,
                    materializedVersion BLOB,
                    lastUsed DOUBLE,
                    UNIQUE (parent, filename)
                );
                INSERT INTO item (node, identifier, parent, filename, isFolder, size, contentVersion, metadataVersion, writable)
                    VALUES (1, '\(NSFileProviderItemIdentifier.rootContainer.rawValue)', NULL, '', 1, 0, x'', x'', 1);
                """)
        }
        migrator.registerMigration("changes") { db in
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN pendingFields INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE item ADD COLUMN localOnly BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE item ADD COLUMN localContents BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE item ADD COLUMN changeCount INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE item ADD COLUMN lastError TEXT;
                CREATE TABLE deletion (
                    identifier TEXT PRIMARY KEY,
                    contentVersion BLOB NOT NULL,
                    metadataVersion BLOB NOT NULL,
                    lastError TEXT
                );
                """)
        }
        return migrator
    }

    /// One item of the replica.
    public struct Entry: Sendable, Equatable {
        public var node: UInt64
        public var item: ProviderItem
        /// Whether the folder's listing has been read whole from the provider.
        public var isListed: Bool
        /// Whether the contents are on disk: as of the item's content version, or changed here since.
        public var isMaterialized: Bool
        public var lastUsed: Date?
        /// The fields changed here and not yet taken by the provider.
        public var pendingFields: NSFileProviderItemFields
        /// Whether the item was made here and the provider doesn't have it yet.
        public var isLocalOnly: Bool
        /// How many changes were made here; an upload's answer applies only if none came since.
        public var changeCount: Int
        /// Why the last upload of its changes failed, if it did.
        public var lastError: String?
    }

    /// Every column of an item, and its parent's identifier.
    static let select = "SELECT item.*, up.identifier AS parentIdentifier FROM item LEFT JOIN item AS up ON up.node = item.parent"

    public func entry(node: UInt64) throws -> Entry? {
        try database.read { db in try Row.fetchOne(db, sql: "\(Self.select) WHERE item.node = ?", arguments: [Int64(node)]).map(Self.entry) }
    }

    public func entry(identifier: NSFileProviderItemIdentifier) throws -> Entry? {
        try database.read { db in try Row.fetchOne(db, sql: "\(Self.select) WHERE item.identifier = ?", arguments: [identifier.rawValue]).map(Self.entry) }
    }

    public func child(named name: String, of parent: UInt64) throws -> Entry? {
        try database.read { db in
            try Row.fetchOne(db, sql: "\(Self.select) WHERE item.parent = ? AND item.filename = ?", arguments: [Int64(parent), name]).map(Self.entry)
        }
    }

    public func children(of parent: UInt64) throws -> [Entry] {
        try database.read { db in
            try Row.fetchAll(db, sql: "\(Self.select) WHERE item.parent = ? ORDER BY item.filename", arguments: [Int64(parent)]).map(Self.entry)
        }
    }

    /// Replaces the children of `parent` with `items`, a whole listing the provider gave:
    /// items already known keep their node, items no longer listed go, with their contents.
    public func replaceChildren(of parent: UInt64, with items: [ProviderItem]) throws {
        let gone: [Int64] = try database.write { db in
            let listed = Set(items.map(\.identifier.rawValue))
            let before = try Row.fetchAll(db, sql: "SELECT node, identifier, (localOnly OR pendingFields != 0) AS changed FROM item WHERE parent = ?",
                                          arguments: [Int64(parent)])
            var gone: [Int64] = []
            for row in before where !listed.contains(row["identifier"]) && !(row["changed"] as Bool) {
                gone += try Self.subtree(of: row["node"], in: db)
            }
            for node in gone { try db.execute(sql: "DELETE FROM item WHERE node = ?", arguments: [node]) }
            // Names may have moved among the listed items: free them all first. No real name has a "/".
            try db.execute(sql: "UPDATE item SET filename = '/' || node WHERE parent = ? AND NOT localOnly AND pendingFields = 0",
                           arguments: [Int64(parent)])
            let changedHere = Set(try String.fetchAll(db, sql: "SELECT identifier FROM item WHERE localOnly OR pendingFields != 0"))
            let deletedHere = Set(try String.fetchAll(db, sql: "SELECT identifier FROM deletion"))
            for item in items where !changedHere.contains(item.identifier.rawValue) && !deletedHere.contains(item.identifier.rawValue) {
                try db.execute(sql: """
                    INSERT INTO item (identifier, parent, filename, isFolder, size, created, modified, contentVersion, metadataVersion, writable)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (identifier) DO UPDATE SET parent = excluded.parent, filename = excluded.filename,
                        isFolder = excluded.isFolder, size = excluded.size, created = excluded.created, modified = excluded.modified,
                        contentVersion = excluded.contentVersion, metadataVersion = excluded.metadataVersion, writable = excluded.writable
                    """, arguments: [item.identifier.rawValue, Int64(parent), item.filename, item.isFolder, Int64(item.size),
                                     item.created?.timeIntervalSince1970, item.modified?.timeIntervalSince1970,
                                     item.contentVersion, item.metadataVersion, item.capabilities.contains(.allowsWriting)])
            }
            try db.execute(sql: "UPDATE item SET listed = 1 WHERE node = ?", arguments: [Int64(parent)])
            return gone
        }
        for node in gone { try? FileManager.default.removeItem(at: contentsURL(node: UInt64(node))) }
    }

    /// `node` and every node under it.
    static func subtree(of node: Int64, in db: Database) throws -> [Int64] {
        try Int64.fetchAll(db, sql: """
            WITH RECURSIVE under(node) AS (SELECT ? UNION ALL SELECT item.node FROM item JOIN under ON item.parent = under.node)
            SELECT node FROM under
            """, arguments: [node])
    }

    /// Where the contents of `node` are kept once fetched.
    public func contentsURL(node: UInt64) -> URL {
        folder.appendingPathComponent("Contents/\(node)")
    }

    /// Takes the file at `fetched` as the contents of `node`, as of `item`: moved in when it is
    /// on the same file system, copied otherwise.
    public func materialize(node: UInt64, from fetched: URL, as item: ProviderItem) throws {
        let destination = contentsURL(node: node)
        try? FileManager.default.removeItem(at: destination)
        do {
            try FileManager.default.moveItem(at: fetched, to: destination)
        } catch {
            try FileManager.default.copyItem(at: fetched, to: destination)
            try? FileManager.default.removeItem(at: fetched)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.int64Value ?? Int64(item.size)
        try database.write { db in
            try db.execute(sql: """
                UPDATE item SET materializedVersion = ?, contentVersion = ?, metadataVersion = ?, size = ?, lastUsed = ? WHERE node = ?
                """, arguments: [item.contentVersion, item.contentVersion, item.metadataVersion, size, Date().timeIntervalSince1970, Int64(node)])
        }
    }

    /// Marks `node`'s contents used now, for eviction's order.
    public func touch(node: UInt64) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE item SET lastUsed = ? WHERE node = ?", arguments: [Date().timeIntervalSince1970, Int64(node)])
        }
    }

    /// Frees the local copy of `node`'s contents; the next read fetches them again.
    public func evict(node: UInt64) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE item SET materializedVersion = NULL WHERE node = ?", arguments: [Int64(node)])
        }
        try? FileManager.default.removeItem(at: contentsURL(node: node))
    }

    static func entry(_ row: Row) -> Entry {
        let item = ProviderItem(
            identifier: NSFileProviderItemIdentifier(row["identifier"] as String),
            parent: (row["parentIdentifier"] as String?).map(NSFileProviderItemIdentifier.init(rawValue:)) ?? .rootContainer, filename: row["filename"],
            isFolder: row["isFolder"], size: UInt64(max(0, row["size"] as Int64)),
            created: (row["created"] as Double?).map(Date.init(timeIntervalSince1970:)),
            modified: (row["modified"] as Double?).map(Date.init(timeIntervalSince1970:)),
            contentVersion: row["contentVersion"], metadataVersion: row["metadataVersion"],
            capabilities: (row["writable"] as Bool) ? .allowsAll : [.allowsReading])
        let materialized = row["materializedVersion"] as Data?
        return Entry(node: UInt64(row["node"] as Int64), item: item, isListed: row["listed"],
                     isMaterialized: row["localContents"] || (materialized != nil && materialized == item.contentVersion),
                     lastUsed: (row["lastUsed"] as Double?).map(Date.init(timeIntervalSince1970:)),
                     pendingFields: NSFileProviderItemFields(rawValue: UInt(row["pendingFields"] as Int64)),
                     isLocalOnly: row["localOnly"], changeCount: row["changeCount"], lastError: row["lastError"])
    }
}
