public import Foundation

extension AppexHome {
    /// The daemon's socket: `appexd.sock` in the runtime folder.
    public var daemonSocketURL: URL { runtimeDirectory.appendingPathComponent("appexd.sock") }
    /// The lock the running daemon holds, so that only one serves a home.
    public var daemonLockURL: URL { runtimeDirectory.appendingPathComponent("appexd.lock") }
    /// Where a daemon started on demand writes its log.
    public var daemonLogURL: URL { runtimeDirectory.appendingPathComponent("appexd.log") }
    /// The socket of the transfers' process (appex-transfers), while it runs: a connection
    /// to it asks it to look at the registry again.
    public var transfersSocketURL: URL { runtimeDirectory.appendingPathComponent("transfers.sock") }
    /// The lock the running transfers' process holds, so that only one performs a home's transfers.
    public var transfersLockURL: URL { runtimeDirectory.appendingPathComponent("transfers.lock") }
    /// Where the transfers' process writes its log.
    public var transfersLogURL: URL { runtimeDirectory.appendingPathComponent("transfers.log") }

    /// Environment variables that make `AppexHome.current` select this home in a child
    /// process, such as a daemon started on its behalf.
    public var selectingEnvironment: [String: String] {
        if runtimeDirectory.standardizedFileURL.path == dataDirectory.appendingPathComponent("run").standardizedFileURL.path {
            return ["APPEX_HOME": dataDirectory.path]
        }
        return [
            "APPEX_HOME": "",
            "XDG_DATA_HOME": dataDirectory.deletingLastPathComponent().path,
            "XDG_RUNTIME_DIR": runtimeDirectory.deletingLastPathComponent().path,
        ]
    }

    /// Whether `other` names the same folders, however the URLs were spelled.
    public func isSameLocation(as other: AppexHome) -> Bool {
        dataDirectory.standardizedFileURL.path == other.dataDirectory.standardizedFileURL.path
            && runtimeDirectory.standardizedFileURL.path == other.runtimeDirectory.standardizedFileURL.path
    }

    /// Creates the runtime folder if needed, private to this user (0700), and refuses one
    /// that another user owns or others can enter.
    public func prepareRuntimeDirectory() throws {
        let path = runtimeDirectory.path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard let status = try runtimeDirectoryStatus() else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        if status.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw AppexHomeError(message: "\(path) is open to other users and can't be made private (0700)")
        }
    }

    /// Checks, before a client connects, that nobody but this user can have put what listens
    /// in the runtime folder: the folder is this user's own, and no one else may write in it.
    /// A folder that isn't there yet passes, since nothing listens in it.
    public func checkRuntimeDirectoryIsPrivate() throws(AppexHomeError) {
        guard let status = try runtimeDirectoryStatus() else { return }
        if status.st_mode & 0o022 != 0 {
            throw AppexHomeError(message: "\(runtimeDirectory.path) is open to other users for writing (mode \(String(status.st_mode & 0o777, radix: 8))), so anyone could have put appexd.sock there; make it 0700, or remove it")
        }
    }

    /// The runtime folder's status, or nil if it isn't there; refuses what isn't a folder
    /// this user owns, such as one another user made first under /tmp.
    private func runtimeDirectoryStatus() throws(AppexHomeError) -> stat? {
        let path = runtimeDirectory.path
        var status = stat()
        guard lstat(path, &status) == 0 else {
            let error = errno
            if error == ENOENT { return nil }
            throw AppexHomeError(message: "\(path) can't be examined: \(String(cString: strerror(error)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw AppexHomeError(message: "\(path) is not a folder; remove it or set APPEX_HOME elsewhere")
        }
        guard status.st_uid == geteuid() else {
            throw AppexHomeError(message: "\(path) belongs to uid \(status.st_uid), not to this user (uid \(geteuid())): whatever listens there may be another user's; remove the folder, or set XDG_RUNTIME_DIR or APPEX_HOME elsewhere")
        }
        return status
    }
}

/// A runtime folder that isn't safe to use.
public struct AppexHomeError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
