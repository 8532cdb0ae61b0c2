public import Foundation

/// Where Appex keeps its data and its runtime files, following the XDG base directories.
///
/// `APPEX_HOME` moves everything under one folder, so tests and demos never touch the
/// user's real data. Otherwise data lives in `$XDG_DATA_HOME/appex` (`~/.local/share/appex`)
/// and runtime files in `$XDG_RUNTIME_DIR/appex`, or a private folder under /tmp.
public struct AppexHome: Sendable, Hashable {
    /// The folder that holds installed apps, containers and the registry.
    public var dataDirectory: URL
    /// The folder that holds the daemon's socket and lock.
    public var runtimeDirectory: URL

    public init(dataDirectory: URL, runtimeDirectory: URL) {
        self.dataDirectory = dataDirectory
        self.runtimeDirectory = runtimeDirectory
    }

    /// Everything under one folder: data in it, runtime files in its `run/`.
    public init(root: URL) {
        self.init(dataDirectory: root, runtimeDirectory: root.appendingPathComponent("run"))
    }

    /// The home this process's environment selects.
    public static var current: AppexHome {
        resolve(environment: ProcessInfo.processInfo.environment, userID: getuid())
    }

    /// The home an environment selects: `APPEX_HOME`, else the XDG folders.
    public static func resolve(environment: [String: String], userID: UInt32) -> AppexHome {
        if let root = environment["APPEX_HOME"], !root.isEmpty {
            return AppexHome(root: URL(fileURLWithPath: root).standardizedFileURL)
        }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 + "/appex" : nil }
            ?? "/tmp/appex-\(userID)"
        return AppexHome(
            dataDirectory: URL(fileURLWithPath: dataHome).appendingPathComponent("appex"),
            runtimeDirectory: URL(fileURLWithPath: runtime)
        )
    }

    /// `Applications/`: installed apps.
    public var applicationsDirectory: URL { dataDirectory.appendingPathComponent("Applications") }
    /// `Containers/`: each app's and extension's private data.
    public var containersDirectory: URL { dataDirectory.appendingPathComponent("Containers") }
    /// `Groups/`: app-group containers.
    public var groupsDirectory: URL { dataDirectory.appendingPathComponent("Groups") }
    /// The registry database.
    public var registryURL: URL { dataDirectory.appendingPathComponent("registry.sqlite") }
    /// `Transfers/Spool/`: the files of uploads in progress, linked or copied from the callers'.
    public var transfersSpoolDirectory: URL { dataDirectory.appendingPathComponent("Transfers/Spool") }

    /// The private data container of the app or extension `bundleIdentifier`.
    public func container(for bundleIdentifier: String) -> URL {
        containersDirectory.appendingPathComponent(bundleIdentifier)
    }

    /// The shared container of the app group `groupIdentifier`.
    public func groupContainer(for groupIdentifier: String) -> URL {
        groupsDirectory.appendingPathComponent(groupIdentifier)
    }
}
