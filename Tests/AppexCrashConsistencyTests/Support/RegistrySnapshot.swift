import AppexCore
import AppexRegistry
import Foundation
import GRDB

/// What the registry says is installed, with the files of each app it points to: the state
/// an install or an uninstall changes, read without changing anything (a read-only
/// connection), so it can be read while a writer waits between two steps.
struct RegistrySnapshot: Hashable, CustomStringConvertible {
    /// Each installed app: identifier, version, and every file of its bundle with its size.
    var apps: [String] = []
    /// Each extension: identifier, app, point, and its bundle's path inside the app's folder.
    var extensions: [String] = []
    var preferences: [String] = []
    var groupEntitlements: [String] = []
    /// The containers, private or of a group, that exist for none of the installed bundles.
    var orphanedContainers: [String] = []

    var description: String {
        "apps \(apps.map { String($0.prefix(80)) }), extensions \(extensions), preferences \(preferences), groups \(groupEntitlements), orphaned containers \(orphanedContainers)"
    }

    /// Reads the registry of `home` as it is on disk now.
    static func read(_ home: AppexHome) throws -> RegistrySnapshot {
        try QuietReader.read(home.registryURL) { db in
            var snapshot = RegistrySnapshot()
            for row in try Row.fetchAll(db, sql: "SELECT bundleIdentifier, version, path FROM app ORDER BY bundleIdentifier") {
                let path: String = row["path"]
                snapshot.apps.append("\(row["bundleIdentifier"] as String) \(row["version"] as String? ?? "-") \(files(in: URL(fileURLWithPath: path)))")
            }
            snapshot.extensions = try Row.fetchAll(db, sql: """
                SELECT e.bundleIdentifier, e.appIdentifier, e.pointIdentifier, e.path, a.path AS appPath
                FROM extension e LEFT JOIN app a ON a.bundleIdentifier = e.appIdentifier ORDER BY e.bundleIdentifier
                """).map { row in
                let path: String = row["path"]
                let inside = (row["appPath"] as String?).map { path.hasPrefix($0 + "/") ? String(path.dropFirst($0.count + 1)) : "outside \(path)" } ?? "no app"
                return "\(row["bundleIdentifier"] as String) of \(row["appIdentifier"] as String) [\(row["pointIdentifier"] as String)] \(inside)"
            }
            snapshot.preferences = try String.fetchAll(db, sql: "SELECT extensionIdentifier || ' ' || enabled FROM extensionPreference ORDER BY 1")
            snapshot.groupEntitlements = try String.fetchAll(db, sql: "SELECT bundleIdentifier || ' ' || groupIdentifier FROM groupEntitlement ORDER BY 1")
            let bundles = Set(try String.fetchAll(db, sql: "SELECT bundleIdentifier FROM app UNION SELECT bundleIdentifier FROM extension"))
            let groups = Set(try String.fetchAll(db, sql: "SELECT groupIdentifier FROM groupEntitlement"))
            snapshot.orphanedContainers = (names(in: home.containersDirectory).filter { !bundles.contains($0) }
                + names(in: home.groupsDirectory).filter { !groups.contains($0) }).sorted()
            return snapshot
        }
    }

    /// Opens the registry as the next process would (which recovers the database and finishes
    /// the removals a committed change left), and checks SQLite's integrity and foreign keys.
    static func recover(_ home: AppexHome) throws -> RegistrySnapshot {
        _ = try Registry(home: home)
        try StoreIntegrity.check(home.registryURL)
        return try read(home)
    }

    /// The files of a bundle with their sizes, or why there are none.
    private static func files(in bundle: URL) -> String {
        guard let walker = FileManager.default.enumerator(at: bundle, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else { return "missing" }
        var files: [String] = []
        for case let file as URL in walker {
            guard let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            files.append("\(file.path.dropFirst(bundle.path.count + 1)):\(values.fileSize ?? -1)")
        }
        return files.isEmpty ? "missing" : files.sorted().joined(separator: ",")
    }

    private static func names(in folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    }
}
