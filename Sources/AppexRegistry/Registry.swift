public import AppexCore
import AppexLocking
import Foundation
import GRDB

/// The record of what is installed: apps, extensions, the user's choices, and the queries
/// hosts make. One SQLite database (WAL) that the CLI and the daemon may open at once.
///
/// ```swift
/// let registry = try Registry(home: .current)
/// let app = try registry.install(appAt: URL(fileURLWithPath: "Notes.app"))
/// let shares = try registry.extensions(point: "com.apple.share-services")
/// ```
public final class Registry: Sendable {
    /// Where the registry's database, apps and containers live.
    public let home: AppexHome
    let database: DatabasePool
    let cache = Locked(RegistryCache())

    /// Opens (creating if needed) the registry under `home`, and finishes any removal a
    /// crashed install or uninstall left behind.
    public init(home: AppexHome = .current) throws(RegistryError) {
        self.home = home
        do {
            try FileManager.default.createDirectory(
                at: home.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
            database = try RegistryDatabase.open(home.registryURL, migrator: RegistryMigrations.migrator)
        } catch {
            throw .storage("can't open the registry at \(home.registryURL.path)", error)
        }
        try finishPendingRemovals()
    }

    /// The registry's change counter: it grows with every change, from any process.
    public func generation() throws(RegistryError) -> Int {
        try read("read the registry's generation") { db in try Self.generation(db) }
    }

    static func generation(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT value FROM generation WHERE id = 1")) ?? 0
    }

    // MARK: - Running database work with errors people can act on

    func read<T>(_ what: String, _ body: (Database) throws -> T) throws(RegistryError) -> T {
        do {
            return try database.read(body)
        } catch let error as RegistryError {
            throw error
        } catch {
            throw .storage("can't \(what)", error)
        }
    }

    /// Runs `body` in an immediate transaction, so writers in other processes wait their turn,
    /// and bumps the generation when it commits, unless `bumpsGeneration` is false: for a
    /// write no cached answer depends on.
    func write<T>(_ what: String, bumpsGeneration: Bool = true, _ body: (Database) throws -> T) throws(RegistryError) -> T {
        do {
            return try database.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    if bumpsGeneration { try db.execute(sql: "UPDATE generation SET value = value + 1 WHERE id = 1") }
                    return .commit
                }
                return result!
            }
        } catch let error as RegistryError {
            throw error
        } catch {
            throw .storage("can't \(what)", error)
        }
    }
}
