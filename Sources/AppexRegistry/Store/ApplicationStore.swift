import AppexBundles
import AppexCore
import AppexSystem
import Foundation
import Glibc

/// The file side of installing: copying bundles into `Applications/`, making containers,
/// and removing folders, never anything outside the Appex home.
struct ApplicationStore {
    let home: AppexHome
    private var fileManager: FileManager { .default }

    /// The prefix of a folder an install is still copying into.
    static let incomingPrefix = ".incoming-"

    /// Runs `body` with `Applications/` writable, and leaves it read-only (0555) again, so
    /// that only the registry's installs and removals change what is in it. Call only while
    /// holding the registry's write lock: that makes the registry the one writer at a time
    /// across processes. The user's own processes can still make it writable; it keeps out
    /// accidents, and the sandbox keeps out extensions.
    func withApplicationsWritable<T>(_ body: () throws -> T) throws -> T {
        let path = home.applicationsDirectory.path
        try fileManager.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard chmod(path, 0o700) == 0 else { throw SystemError("chmod", subject: path) }
        defer { chmod(path, 0o555) }
        return try body()
    }

    /// Copies `source` (a `.app` folder) into a new private folder under `Applications/`, and
    /// returns the copy's URL. The copy is a real tree, read through descriptors from the
    /// folder `source` names (a link there is the caller's, and followed): links inside are
    /// kept as links, and anything the author changes meanwhile is copied as it was when
    /// opened, or stops the copy. The copy is read-only, so that only the registry changes it.
    ///
    /// - Throws: ``RegistryError`` with ``RegistryError/Code/invalidBundle`` when the bundle
    ///   holds what can't be copied or is over a limit, or the error of the file system.
    func copyIn(_ source: URL) throws -> URL {
        let folder = home.applicationsDirectory.appendingPathComponent(Self.incomingPrefix + Self.token())
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: false)
        let destination = folder.appendingPathComponent(source.lastPathComponent)
        do {
            try fileManager.createDirectory(at: destination, withIntermediateDirectories: false)
            try Self.copyTree(from: source, to: destination)
            guard chmod(folder.path, 0o555) == 0 else { throw SystemError("chmod", subject: folder.path) }
        } catch {
            remove(folder.path)
            throw error
        }
        return destination
    }

    /// Copies the tree of the folder `source` into the empty folder `destination`; what the
    /// bundle's author decides (a FIFO, a limit passed) is an invalid bundle.
    private static func copyTree(from source: URL, to destination: URL) throws {
        let failure: SystemError
        do {
            let from = try ConfinedFolder(trusted: source.path)
            defer { from.close() }
            let into = try ConfinedFolder(destination.path)
            defer { into.close() }
            try FolderCopy(limits: bundleLimits).copy(from: from, into: into)
            return
        } catch {
            failure = error
        }
        guard [EINVAL, EFBIG, ELOOP, ENOTDIR].contains(failure.errno) else { throw failure }
        throw RegistryError(.invalidBundle, "\(source.lastPathComponent) can't be copied: \(failure)",
                            hint: "a bundle holds folders, files and links only, within its limits; install it once it is finished")
    }

    /// Clears DF_1_PIE in the copied executables at `paths`, relative to `copy`, so that
    /// appexd's launcher can load them (docs/zygote.md). Each still runs on its own, and the
    /// author's files are untouched: the copy's files are new ones. Each is opened beneath
    /// the copy through no link; a link, or a file that is no executable linked dynamically, is
    /// left as it is, and is spawned.
    func prepareForLoading(_ paths: [String], in copy: URL) throws {
        let folder = try ConfinedFolder(copy.path)
        defer { folder.close() }
        for path in paths {
            let subject = "\(copy.path)/\(path)"
            let opened = Result { () throws(SystemError) in try folder.openFile(path) }
            if case .failure(let error) = opened, error.errno == ELOOP { continue }
            let file = try opened.get()
            defer { file.close() }
            var status = stat()
            guard fstat(file.rawValue, &status) == 0 else { throw SystemError("fstat", subject: subject) }
            let mode = status.st_mode & 0o7777
            // The copy is read-only (0555): writable for the moment of the change.
            guard fchmod(file.rawValue, mode | 0o200) == 0 else { throw SystemError("chmod", subject: subject) }
            defer { fchmod(file.rawValue, mode) }
            let writable = try FileDescriptor.open("/proc/self/fd/\(file.rawValue)", flags: O_RDWR)
            defer { writable.close() }
            try LoadableExecutable.clearPIEFlag(in: writable)
        }
    }

    /// What a bundle may hold: ``BundleLayout``'s limits.
    static let bundleLimits = FolderCopy.Limits(files: BundleLayout.maximumFileCount, depth: BundleLayout.maximumDepth,
                                                bytes: BundleLayout.maximumSize)

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
            remove(home.applicationsDirectory.appendingPathComponent(name).path)
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

    /// Removes `path` and everything in it, if it lies inside the Appex data folder: links
    /// inside (an extension may plant them in its container) are removed, never followed, and
    /// a read-only installed bundle is made writable first.
    func remove(_ path: String) {
        let root = home.dataDirectory.standardizedFileURL.path + "/"
        guard URL(fileURLWithPath: path).standardizedFileURL.path.hasPrefix(root) else { return }
        try? ConfinedFolder.removeTree(atPath: path)
    }

    private static func token() -> String {
        String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12)).lowercased()
    }
}
