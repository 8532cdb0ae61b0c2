public import AppexSystem
import Glibc
import Synchronization

/// appexd's AppexKit (`libAppexKit.so`), which every extension linked to the shared AppexKit
/// runs with, forked from the launcher that has loaded it or spawned (docs/zygote.md,
/// "AppexKit, shared"). The loader finds it by its name in `LD_LIBRARY_PATH`, ahead of the
/// executable's own run path, and the sandbox lets the extension read that one file. Without
/// one, an extension linked to it can't start, and its launch says so.
public final class SharedAppexKit: Sendable {
    /// The path of the library, or nil if appexd has none.
    public let path: String?
    private let dependents = Mutex<[ExecutableVersion: Bool]>([:])

    public init(path: String?) {
        self.path = path
    }

    /// Where appexd's AppexKit is: `APPEX_KIT` (`off` for none), else `libAppexKit.so` in
    /// `folder`, appexd's, if it is there.
    public static func locate(environment: [String: String], beside folder: String) -> String? {
        switch environment["APPEX_KIT"] {
        case "off": return nil
        case let path? where !path.isEmpty: return path
        default:
            let beside = "\(folder)/\(LoadableExecutable.appexKitLibrary)"
            return access(beside, F_OK) == 0 ? beside : nil
        }
    }

    /// Whether the executable at `path` is linked to the shared AppexKit; decided once for each
    /// version of the file. False for one that can't be read: its launch says why.
    public func isNeeded(by executable: String) -> Bool {
        guard let file = try? FileDescriptor.open(executable) else { return false }
        defer { file.close() }
        guard let version = try? ExecutableVersion(file) else { return false }
        if let known = dependents.withLock({ $0[version] }) { return known }
        let needed = LoadableExecutable.needsAppexKit(file)
        dependents.withLock { $0[version] = needed }
        return needed
    }

    /// `launch`, with this AppexKit for its executable to find if it needs it; throws if it
    /// needs it and there is none.
    public func provided(to launch: ProcessLaunch) throws(SystemError) -> ProcessLaunch {
        guard isNeeded(by: launch.executable) else { return launch }
        guard let path else {
            throw SystemError("launch", subject: "\(launch.executable): it is linked to \(LoadableExecutable.appexKitLibrary), and there is none beside appexd; "
                              + "build Appex with `swift build`, which builds it, or set APPEX_KIT to its path", errno: ENOENT)
        }
        var launch = launch
        launch.environment["LD_LIBRARY_PATH"] = Launcher.folder(of: path)
        launch.restrictions?.landlock?.rules.append(LandlockRuleset.Rule(path, .readFile))
        return launch
    }
}
