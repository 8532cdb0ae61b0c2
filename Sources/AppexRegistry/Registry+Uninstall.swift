import AppexCore
import Foundation
import GRDB

extension Registry {
    /// What an uninstall removed.
    public struct UninstallReport: Sendable, Hashable {
        /// The app's identifier.
        public var appIdentifier: String
        /// The identifiers of its extensions.
        public var extensionIdentifiers: [String]
        /// The app groups whose containers were removed, because no remaining app is entitled to them.
        public var removedGroups: [String]
    }

    /// Removes an app, its extensions, their containers, and the app-group containers that no
    /// remaining app or extension is entitled to. The user's enable and order choices are kept,
    /// so a later reinstall restores them.
    @discardableResult
    public func uninstall(_ appIdentifier: String) throws(RegistryError) -> UninstallReport {
        let report: UninstallReport = try write("uninstall \(appIdentifier)") { db in
            guard let app = try Self.installedApp(appIdentifier, db) else {
                if let owner = try String.fetchOne(
                    db, sql: "SELECT appIdentifier FROM extension WHERE bundleIdentifier = ?", arguments: [appIdentifier])
                {
                    throw RegistryError(.notInstalled, "\(appIdentifier) is an extension, not an app", hint: "extensions come and go with their app: uninstall \(owner)")
                }
                throw RegistryError(.notInstalled, "no app \(appIdentifier) is installed", hint: "`appex list` shows what is installed")
            }
            let extensions = try String.fetchAll(
                db, sql: "SELECT bundleIdentifier FROM extension WHERE appIdentifier = ? ORDER BY bundleIdentifier", arguments: [app.bundleIdentifier])
            let orphanedGroups = try String.fetchAll(db, sql: """
                SELECT DISTINCT groupIdentifier FROM groupEntitlement WHERE appIdentifier = ?
                AND groupIdentifier NOT IN (SELECT groupIdentifier FROM groupEntitlement WHERE appIdentifier != ?)
                ORDER BY groupIdentifier
                """, arguments: [app.bundleIdentifier, app.bundleIdentifier])
            var paths = [URL(fileURLWithPath: app.path).deletingLastPathComponent().path]
            paths += ([app.bundleIdentifier] + extensions).map { home.container(for: $0).path }
            paths += orphanedGroups.map { home.groupContainer(for: $0).path }
            for path in paths { try PendingRemovalRecord(path: path).save(db) }
            try app.delete(db)
            try Self.assignURLSchemes(db)
            return UninstallReport(appIdentifier: app.bundleIdentifier, extensionIdentifiers: extensions, removedGroups: orphanedGroups)
        }
        try finishPendingRemovals()
        return report
    }

    /// Deletes the folders that committed transactions orphaned, then forgets them, under
    /// the registry's write lock, as the only writer of `Applications/`.
    func finishPendingRemovals() throws(RegistryError) {
        let store = ApplicationStore(home: home)
        let pending = try read("read pending removals") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pendingRemoval") ?? 0 }
        guard pending > 0 else { return }
        try write("finish pending removals", bumpsGeneration: false) { db in
            let paths = try String.fetchAll(db, sql: "SELECT path FROM pendingRemoval")
            try store.withApplicationsWritable {
                for path in paths { store.remove(path) }
            }
            for path in paths { try PendingRemovalRecord(path: path).delete(db) }
        }
    }
}
