import AppexCore
import AppexLauncher
import AppexRegistry
import AppexSandbox
import AppexSystem
import Foundation

/// What `appex doctor` says of appexd's launcher (docs/zygote.md): which program and which
/// AppexKit appexd would use, found as appexd finds them, and how it would start each
/// installed extension, forked from the launcher or spawned, and why.
enum LauncherChecks {
    static func run(extensions: [InstalledExtension], environment: [String: String] = ProcessInfo.processInfo.environment,
                    add: (String, String, DoctorCommand.Check.State, String) -> Void) {
        let area = "Launcher"
        let appexKit = SharedAppexKit.locate(environment: environment, beside: CompanionProgram.runningProgramDirectory.path)
        if let appexKit {
            add(area, "AppexKit", .ok, "\(appexKit): extensions linked to the shared AppexKit run with it, forked or spawned")
        } else {
            add(area, "AppexKit", .missing, "no \(LoadableExecutable.appexKitLibrary) beside appexd (or APPEX_KIT=off): an extension linked to it can't start; "
                + "`swift build` builds it, or set APPEX_KIT to its path")
        }
        let (launcher, why) = findLauncher(environment)
        guard let launcher else {
            add(area, "launcher", .unavailable, "\(why): appexd spawns every extension")
            return
        }
        guard let runtime = LoadableExecutable.runtime(of: launcher) else {
            add(area, "launcher", .missing, "\(launcher) names no \(LoadableExecutable.runtimeLibrary) that can be found: appexd spawns every extension")
            return
        }
        add(area, "launcher", .ok, "\(launcher), with \(runtime.path)\(appexKit.map { " and \($0)" } ?? ""): appexd forks the extensions it can load from it")
        for plugIn in extensions {
            add(area, "extension", .ok, "\(plugIn.identifier): \(start(of: plugIn.executableURL.path, runtime: runtime.identity, appexKit: appexKit))")
        }
    }

    /// How appexd would start the executable at `path`.
    static func start(of path: String, runtime: FileIdentity, appexKit: String?) -> String {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path)
        } catch {
            return "can't start: \(error)"
        }
        defer { file.close() }
        if appexKit == nil && LoadableExecutable.needsAppexKit(file) {
            return "can't start: it is linked to \(LoadableExecutable.appexKitLibrary), and appexd has none"
        }
        do {
            let loadable = try LoadableExecutable(file, path: path, runtime: runtime, hasAppexKit: appexKit != nil)
            return loadable.isFlaggedPIE ? "spawned: it is still flagged DF_1_PIE, as an older Appex installed it; install it again" : "forked from the launcher"
        } catch {
            return "spawned: \(error)"
        }
    }

    /// appexd's launcher, as it finds it, or why it has none.
    static func findLauncher(_ environment: [String: String]) -> (String?, String) {
        if environment[CompanionProgram.launcher.variable] == "off" { return (nil, "APPEX_LAUNCHER=off") }
        let sandbox = Sandbox()
        if sandbox.isOff { return (nil, "the sandbox is off") }
        if let problem = sandbox.kernel.isolationProblem { return (nil, "the kernel gives no pid namespace (\(problem))") }
        if Sanitizers.areActive { return (nil, "this is a sanitized build, whose extensions carry their sanitizer's runtime") }
        guard let path = CompanionProgram.launcher.locate(environment: environment) else { return (nil, CompanionProgram.launcher.notFound.message) }
        return (path, "")
    }
}
