import AppexCore
import AppexBundles
import AppexLocking
import Foundation
import GRDB
import Synchronization

extension Registry {
    /// Every installed app, by identifier.
    public func apps() throws(RegistryError) -> [InstalledApp] {
        try read("list apps") { db in
            try AppRecord.order(Column("bundleIdentifier")).fetchAll(db).map { try makeApp($0, db) }
        }
    }

    /// The installed app `identifier` (compared case-insensitively), or `nil`.
    public func app(_ identifier: String) throws(RegistryError) -> InstalledApp? {
        try read("read \(identifier)") { db in
            try Self.installedApp(identifier, db).map { try makeApp($0, db) }
        }
    }

    func app(installedAt url: URL) throws(RegistryError) -> InstalledApp? {
        try read("read the installed app") { db in
            try AppRecord.filter(Column("path") == url.path).fetchOne(db).map { try makeApp($0, db) }
        }
    }

    /// Installed extensions, optionally of one point only, in the user's order: ordered ones
    /// first by position, then the rest by identifier. Disabled ones are included.
    public func extensions(point: String? = nil) throws(RegistryError) -> [InstalledExtension] {
        try read("list extensions") { db in
            var sql = Self.extensionSelect
            var arguments: StatementArguments = []
            if let point {
                sql += " WHERE e.pointIdentifier = ?"
                arguments = [point]
            }
            sql += " ORDER BY p.position IS NULL, p.position, e.bundleIdentifier"
            let languages = PreferredLanguages.current
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { try makeExtension($0, languages: languages) }
        }
    }

    /// The installed extension `identifier` (compared case-insensitively), or `nil`.
    ///
    /// Answers from memory while the registry's generation is the one the answer was read at,
    /// so a caller asking per request (appexd, per launch) reads one row of the database, not
    /// the extension's, and decodes nothing; any change by any process bumps the generation.
    public func `extension`(_ identifier: String) throws(RegistryError) -> InstalledExtension? {
        let languages = PreferredLanguages.current
        return try read("read \(identifier)") { db in
            // One read transaction: the row read below is of the generation read here.
            let generation = try Self.generation(db)
            let cached = cache.withLock { cache -> CachedExtension? in
                guard cache.generation == generation, let entry = cache.extensions[identifier],
                      entry.languages == languages else { return nil }
                return entry
            }
            if let cached { return cached.installed }
            let installed = try Row.fetchOne(db.cachedStatement(sql: Self.extensionSelect + " WHERE e.bundleIdentifier = ?"),
                                             arguments: [identifier])
                .map { try makeExtension($0, languages: languages) }
            cache.withLock {
                if $0.generation != generation { $0 = RegistryCache(generation: generation) }
                $0.extensions[identifier] = CachedExtension(languages: languages, installed: installed)
            }
            return installed
        }
    }

    static let extensionSelect = """
        SELECT e.*, COALESCE(p.enabled, 1) AS enabled, p.position AS position, p.debuggerWait AS debuggerWait
        FROM extension e LEFT JOIN extensionPreference p ON p.extensionIdentifier = e.bundleIdentifier
        """

    private func makeApp(_ record: AppRecord, _ db: Database) throws -> InstalledApp {
        let rows = try Row.fetchAll(
            db, sql: Self.extensionSelect + " WHERE e.appIdentifier = ? ORDER BY e.bundleIdentifier", arguments: [record.bundleIdentifier])
        let info = try Self.bundleInfo(record.infoPlist, role: .application, identifier: record.bundleIdentifier)
        let languages = PreferredLanguages.current
        return InstalledApp(
            identifier: record.bundleIdentifier,
            displayName: PropertyListCoding.displayName(from: record.displayNames, languages: languages) ?? record.bundleIdentifier,
            url: URL(fileURLWithPath: record.path), version: record.version?.escapingControlCharacters, shortVersion: record.shortVersion?.escapingControlCharacters, info: info,
            entitlements: try Self.entitlements(record.entitlements, identifier: record.bundleIdentifier),
            installedAt: record.installedAt, extensions: try rows.map { try makeExtension($0, languages: languages) }
        )
    }

    private func makeExtension(_ row: Row, languages: [String]) throws -> InstalledExtension {
        let record = try ExtensionRecord(row: row)
        return InstalledExtension(.init(
            identifier: record.bundleIdentifier, appIdentifier: record.appIdentifier, pointIdentifier: record.pointIdentifier,
            displayName: PropertyListCoding.displayName(from: record.displayNames, languages: languages) ?? record.bundleIdentifier,
            url: URL(fileURLWithPath: record.path), version: record.version?.escapingControlCharacters, shortVersion: record.shortVersion?.escapingControlCharacters,
            info: try Self.bundleInfo(record.infoPlist, role: .appExtension, identifier: record.bundleIdentifier),
            entitlements: try Self.entitlements(record.entitlements, identifier: record.bundleIdentifier),
            isEnabled: row["enabled"], position: row["position"], debuggerWait: (row["debuggerWait"] as String?).flatMap(DebuggerWait.init)
        ))
    }

    static func bundleInfo(_ data: Data, role: BundleInfo.Role, identifier: String) throws -> BundleInfo {
        var diagnostics: [Diagnostic] = []
        guard let info = BundleInfo.read(try PropertyListCoding.decode(data), role: role, file: identifier, diagnostics: &diagnostics) else {
            throw RegistryError(.storage, "the registry's copy of \(identifier)'s Info.plist no longer reads: \(diagnostics.map(\.description).joined(separator: "; "))")
        }
        return info
    }

    static func entitlements(_ data: Data, identifier: String) throws -> Entitlements {
        var diagnostics: [Diagnostic] = []
        return Entitlements.read(try PropertyListCoding.decode(data), file: identifier, diagnostics: &diagnostics)
    }
}
