import AppexCore
import Foundation
import GRDB

/// Which installed app opens each URL scheme. Schemes are the apps' own claims, and two apps
/// may declare one (two mail apps and `mailto`), so a scheme belongs to one of them: the first
/// installed that declares it, kept through its upgrades, until the user chooses another
/// (`appex schemes set`). An app installed later can't take a scheme by declaring it.
extension Registry {
    /// Who opens the URLs of one scheme.
    public struct URLSchemeHandler: Sendable, Hashable, Codable {
        /// The scheme, in lower case.
        public var scheme: String
        /// The app that opens the scheme's URLs.
        public var appIdentifier: String
        /// Whether the user chose the app, rather than its having declared the scheme first.
        public var isChosen: Bool
        /// The other installed apps that declare the scheme, by identifier.
        public var otherApps: [String]

        public init(scheme: String, appIdentifier: String, isChosen: Bool, otherApps: [String]) {
            self.scheme = scheme
            self.appIdentifier = appIdentifier
            self.isChosen = isChosen
            self.otherApps = otherApps
        }
    }

    /// The installed app that opens the URLs of `scheme`, or nil if none declares it.
    public func app(openingScheme scheme: String) throws(RegistryError) -> InstalledApp? {
        let holder = try read("find the app opening \(scheme):") { db in
            try String.fetchOne(db, sql: "SELECT appIdentifier FROM urlSchemeHandler WHERE scheme = ?", arguments: [scheme.lowercased()])
        }
        return try holder.flatMap { id throws(RegistryError) in try app(id) }
    }

    /// Every scheme an installed app declares, with the app that opens it, by scheme.
    public func urlSchemeHandlers() throws(RegistryError) -> [URLSchemeHandler] {
        try read("read the URL schemes") { db in
            try Row.fetchAll(db, sql: """
                SELECT h.scheme, h.appIdentifier, h.chosen,
                       (SELECT group_concat(appIdentifier, ' ') FROM
                           (SELECT appIdentifier FROM urlScheme d WHERE d.scheme = h.scheme AND d.appIdentifier != h.appIdentifier ORDER BY appIdentifier)) AS others
                FROM urlSchemeHandler h ORDER BY h.scheme
                """).map { row in
                let others: String? = row["others"]
                return URLSchemeHandler(scheme: row["scheme"], appIdentifier: row["appIdentifier"], isChosen: row["chosen"],
                                        otherApps: others.map { $0.split(separator: " ").map(String.init) } ?? [])
            }
        }
    }

    /// Has `appIdentifier`, which must declare `scheme`, open its URLs from now on.
    public func setHandler(ofScheme scheme: String, to appIdentifier: String) throws(RegistryError) {
        let scheme = scheme.lowercased()
        try write("have \(appIdentifier) open \(scheme): URLs") { db in
            guard let app = try Self.installedApp(appIdentifier, db) else {
                throw RegistryError(.notInstalled, "no app \(appIdentifier) is installed", hint: "`appex schemes` lists each scheme's apps")
            }
            let declarers = try String.fetchAll(db, sql: "SELECT appIdentifier FROM urlScheme WHERE scheme = ? ORDER BY appIdentifier", arguments: [scheme])
            guard declarers.contains(where: { $0.caseInsensitiveCompare(app.bundleIdentifier) == .orderedSame }) else {
                let which = declarers.isEmpty ? "no installed app declares it" : "only \(declarers.joined(separator: ", ")) can"
                throw RegistryError(.conflict, "\(app.bundleIdentifier) doesn't declare the URL scheme \(scheme) in its CFBundleURLTypes, so it can't open \(scheme): URLs; \(which)",
                                    hint: "`appex schemes` lists each scheme's apps")
            }
            try db.execute(sql: """
                INSERT INTO urlSchemeHandler (scheme, appIdentifier, chosen) VALUES (?, ?, 1)
                ON CONFLICT(scheme) DO UPDATE SET appIdentifier = excluded.appIdentifier, chosen = 1
                """, arguments: [scheme, app.bundleIdentifier])
        }
    }

    /// Records the schemes `info` declares for the app `identifier`.
    static func recordURLSchemes(of info: BundleInfo, app identifier: String, _ db: Database) throws {
        for scheme in info.urlSchemes {
            try db.execute(sql: "INSERT INTO urlScheme (appIdentifier, scheme) VALUES (?, ?)", arguments: [identifier, scheme])
        }
    }

    /// After an install or an uninstall: a scheme whose app no longer declares it, or has
    /// gone, passes to the app installed (or last upgraded) earliest that declares it.
    static func assignURLSchemes(_ db: Database) throws {
        try db.execute(sql: """
            DELETE FROM urlSchemeHandler WHERE NOT EXISTS
                (SELECT 1 FROM urlScheme d WHERE d.scheme = urlSchemeHandler.scheme AND d.appIdentifier = urlSchemeHandler.appIdentifier)
            """)
        try db.execute(sql: """
            INSERT INTO urlSchemeHandler (scheme, appIdentifier, chosen)
            SELECT declared.scheme,
                   (SELECT d.appIdentifier FROM urlScheme d JOIN app a ON a.bundleIdentifier = d.appIdentifier
                    WHERE d.scheme = declared.scheme ORDER BY a.installedAt, a.bundleIdentifier LIMIT 1),
                   0
            FROM (SELECT DISTINCT scheme FROM urlScheme) declared
            WHERE declared.scheme NOT IN (SELECT scheme FROM urlSchemeHandler)
            """)
    }
}
