import AppexCore
import Foundation

/// The file side of installing: copying bundles into `Applications/`, making containers,
/// and removing folders, never anything outside the Appex home.
struct ApplicationStore {
    let home: AppexHome
    private var fileManager: FileManager { .default }

    /// The prefix of a folder an install is still copying into.
    static let incomingPrefix = ".incoming-"

    /// Copies `source` (a `.app` folder) into a new private folder under `Applications/`,
    /// keeping symbolic links as links and permissions as they are. Returns the copy's URL.
    func copyIn(_ source: URL) throws -> URL {
        try fileManager.createDirectory(at: home.applicationsDirectory, withIntermediateDirectories: true)
        let folder = home.applicationsDirectory.appendingPathComponent(Self.incomingPrefix + Self.token())
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: false)
        let destination = folder.appendingPathComponent(source.lastPathComponent)
        do {
            try fileManager.copyItem(at: source, to: destination)
        } catch {
            try? fileManager.removeItem(at: folder)
            throw error
        }
        return destination
    }

    /// Moves a copied bundle's private folder to its final name, `Applications/<id>-<token>/`.
    func settle(_ copy: URL, identifier: String) throws -> URL {
        let folder = copy.deletingLastPathComponent()
        let token = String(folder.lastPathComponent.dropFirst(Self.incomingPrefix.count))
        let final = home.applicationsDirectory.appendingPathComponent("\(identifier)-\(token)")
        try fileManager.moveItem(at: folder, to: final)
        return final.appendingPathComponent(copy.lastPathComponent)
    }

    /// How many entries `Applications/` holds: one per installed app, unless an install crashed.
    func applicationFolderCount() -> Int {
        ((try? fileManager.contentsOfDirectory(atPath: home.applicationsDirectory.path)) ?? []).count
    }

    /// Removes folders under `Applications/` that no installed app uses: what an install that
    /// crashed before committing left behind. Call only while holding the registry's write lock.
    func sweepApplications(keeping used: Set<String>) {
        guard let names = try? fileManager.contentsOfDirectory(atPath: home.applicationsDirectory.path) else { return }
        for name in names where !used.contains(name) {
            try? fileManager.removeItem(at: home.applicationsDirectory.appendingPathComponent(name))
        }
    }

    /// Creates the private container of each bundle, if it does not exist yet.
    func makeContainers(for identifiers: [String]) throws {
        for identifier in identifiers {
            try fileManager.createDirectory(
                at: home.container(for: identifier), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
    }

    /// Removes `path` and everything in it, if it lies inside the Appex data folder.
    func remove(_ path: String) {
        let root = home.dataDirectory.standardizedFileURL.path + "/"
        guard URL(fileURLWithPath: path).standardizedFileURL.path.hasPrefix(root) else { return }
        try? fileManager.removeItem(atPath: path)
    }

    private static func token() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12)).lowercased()
    }
}
