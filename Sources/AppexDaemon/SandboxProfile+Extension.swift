import AppexBundles
import AppexCore
import AppexRegistry
import AppexSandbox
import Foundation

extension SandboxProfile {
    /// What an extension may do, from its bundle and its entitlements:
    /// - run and read its own bundle, its containing app's `Frameworks/`, and the system's
    ///   libraries;
    /// - read the system's configuration, the processor topology that Dispatch sizes its
    ///   threads by, and the type table appexd was told to use (`APPEX_SYSTEM_TYPES`);
    /// - read and write its own container, which holds its tmp, and the container of each app
    ///   group it is entitled to (`com.apple.security.application-groups`);
    /// - connect to TCP servers only with `com.apple.security.network.client`;
    /// - have at most `processLimit` processes and threads.
    ///
    /// Nothing else: not the user's home, not another app's container or group, and no
    /// other program's Unix socket (see ``socketFolders(home:environment:)``). Each path in
    /// the data folder is granted only if it is a folder reached through no symbolic link.
    static func forExtension(_ installed: InstalledExtension, home: AppexHome, processLimit: Int,
                             environment: [String: String] = ProcessInfo.processInfo.environment) -> SandboxProfile {
        let app = installed.url.deletingLastPathComponent().deletingLastPathComponent()
        let groups = installed.entitlements.applicationGroups.map { home.groupContainer(for: $0).path }
        var profile = SandboxProfile(
            executable: systemExecutable + [installed.url.path, app.appendingPathComponent(BundleLayout.frameworks).path],
            readOnly: systemReadOnly + ["/sys/devices/system/cpu"] + (environment["APPEX_SYSTEM_TYPES"].map { [$0] } ?? []),
            readWrite: systemReadWrite + [home.container(for: installed.identifier).path] + groups,
            mayConnect: installed.entitlements.networkClient,
            processes: UInt64(processLimit),
            // Its bundle came from its author, and it writes its container; its groups, their members.
            confined: [home.dataDirectory.path])
        let granted = profile.executable + profile.readOnly + profile.readWrite
        // A folder that holds a granted path stays (even "/", should XDG_RUNTIME_DIR say so).
        profile.hidden = socketFolders(home: home, environment: environment).filter { folder in
            let inside = folder.hasSuffix("/") ? folder : folder + "/"
            return !granted.contains { $0 == folder || $0.hasPrefix(inside) }
        }
        return profile
    }

    /// The folders where other programs listen on Unix sockets, which an extension must not
    /// reach: appexd's runtime folder, the user's (`$XDG_RUNTIME_DIR`: the session bus, the
    /// display server, sound, agents) and X11's. Landlock doesn't govern connecting by path.
    /// The seccomp baseline refuses to make a Unix socket at all; hiding these folders in the
    /// extension's mount namespace covers a kernel without seccomp.
    static func socketFolders(home: AppexHome, environment: [String: String]) -> [String] {
        let userRuntime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? [$0] : nil } ?? []
        return [home.runtimeDirectory.path] + userRuntime + ["/tmp/.X11-unix"]
    }
}
