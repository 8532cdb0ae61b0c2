import AppexLauncher
import AppexLocking
import AppexSandbox
import AppexSystem
import Foundation

/// How appexd starts an extension's process: forked from the preloaded launcher when it can
/// load the executable (docs/zygote.md), spawned otherwise. The launcher starts in the
/// background when appexd does, off any request's path, and launches before it is ready are
/// spawned. One that fails is replaced, up to ``launcherStarts`` times in all; after that,
/// every extension is spawned, and the log says why. An extension linked to the shared
/// AppexKit runs with appexd's, which the launcher has loaded, either way.
final class ExtensionStarter: Sendable {
    private struct State {
        var launcher: Launcher?
        var isStarting = false
        var starts = 0
    }

    /// The launcher's program, or nil to spawn every extension.
    private let program: String?
    /// appexd's AppexKit, or nil if it has none: then an extension linked to it can't start.
    private let appexKit: SharedAppexKit
    private let state = Locked(State())

    /// How many launchers appexd starts before it spawns every extension.
    static let launcherStarts = 3

    /// A starter that forks from `program` where `sandbox` gives each extension a pid
    /// namespace, whose init reports how it ends; else one that spawns. A sanitized appexd
    /// starts no launcher: the extensions of such a build carry their sanitizer's runtime,
    /// which must be alone in its process, so none could be loaded.
    init(program: String?, appexKit: String?, sandbox: Sandbox) {
        self.program = sandbox.isOff || sandbox.kernel.isolationProblem != nil || Sanitizers.areActive ? nil : program
        self.appexKit = SharedAppexKit(path: appexKit)
    }

    /// Starts the launcher in the background, if there is one to start.
    func prepare() {
        guard let program else { return }
        let starts = state.withLock { state -> Bool in
            guard state.launcher == nil, !state.isStarting, state.starts < Self.launcherStarts else { return false }
            state.isStarting = true
            state.starts += 1
            return true
        }
        guard starts else { return }
        let thread = Thread { [weak self] in
            let launcher: Launcher?
            do {
                launcher = try Launcher(executable: program, appexKit: self?.appexKit.path)
                DaemonLog.write(line: "appexd: the launcher \(program) (pid \(launcher!.process.processID)) is ready: it starts extensions "
                                + "linked to \(launcher!.runtimePath)" + (launcher!.appexKitPath.map { ", and to \($0)" } ?? ""))
            } catch {
                launcher = nil
                DaemonLog.write(line: "appexd: the launcher \(program) could not be started, so extensions are spawned: \(error)")
            }
            self?.state.withLock { state in
                state.launcher = launcher
                state.isStarting = false
            }
        }
        thread.name = "appex-launcher-start"
        thread.start()
    }

    /// Starts `launch`: through the launcher if it is ready and takes it, unless `spawning`.
    /// Throws the step that failed, and leaves no process.
    func start(_ launch: ProcessLaunch, spawning: Bool = false) throws(SystemError) -> ProcessDescriptor {
        let launch = try appexKit.provided(to: launch)
        if !spawning, let launcher = state.withLock({ $0.launcher }) {
            do throws(Launcher.Failure) {
                if let process = try launcher.start(launch) { return process }
            } catch {
                switch error {
                case .launch(let failure):
                    throw failure
                case .launcher(let failure):
                    DaemonLog.write(line: "appexd: the launcher failed, so \(launch.executable) is spawned: \(failure)")
                    replace(launcher)
                }
            }
        }
        return try launch.spawn()
    }

    /// Drops `failed`, if it is still the launcher, and starts another.
    private func replace(_ failed: Launcher) {
        state.withLock { state in
            if state.launcher === failed { state.launcher = nil }
        }
        prepare()
    }
}
