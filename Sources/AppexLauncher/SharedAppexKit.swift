public import AppexSystem
import Glibc
import Synchronization

/// appexd's AppexKit (`libAppexKit.so`), which every extension linked to the shared AppexKit
/// runs with, forked from the launcher that has loaded it or spawned (docs/zygote.md,
/// "AppexKit, shared"). The loader finds it by its name in `LD_LIBRARY_PATH`, ahead of the
/// executable's own run path, and the sandbox lets the extension read that one file.
public final class SharedAppexKit: Sendable {
    /// The path of the library.
    public let path: String
    private let dependents = Mutex<[ExecutableVersion: Bool]>([:])

    public init(path: String) {
        self.path = path
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

    /// `launch`, with this AppexKit for its executable to find if it needs it.
    public func provided(to launch: ProcessLaunch) -> ProcessLaunch {
        guard isNeeded(by: launch.executable) else { return launch }
        var launch = launch
        launch.environment["LD_LIBRARY_PATH"] = Launcher.folder(of: path)
        launch.restrictions?.landlock?.rules.append(LandlockRuleset.Rule(path, .readFile))
        return launch
    }
}
