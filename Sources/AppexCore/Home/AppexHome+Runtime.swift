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
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        guard status.st_uid == geteuid(), status.st_mode & S_IFMT == S_IFDIR else {
            throw AppexHomeError(message: "\(path) is not a folder this user owns; remove it or set APPEX_HOME elsewhere")
        }
        if status.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw AppexHomeError(message: "\(path) is open to other users and can't be made private (0700)")
        }
    }
}

/// A runtime folder that isn't safe to use.
public struct AppexHomeError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
