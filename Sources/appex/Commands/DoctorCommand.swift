import AppexBrowser
import AppexCore
import AppexHost
import AppexIPC
import AppexRegistry
import AppexSandbox
import AppexSystem
import AppexWire
import ArgumentParser
import Foundation

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Report what this machine and this installation provide, and what is missing."
    )

    @Flag(help: "Print JSON.")
    var json = false

    /// One fact the doctor checked.
    struct Check: Encodable {
        enum State: String, Encodable { case ok, missing, unavailable }
        var area: String
        var name: String
        var state: State
        var detail: String
    }

    func run() async throws {
        let checks = await DoctorChecks.run(home: .current)
        if json { return try Output.json(checks) }
        var area = ""
        for check in checks {
            if check.area != area {
                area = check.area
                print(area)
            }
            let mark = switch check.state {
            case .ok: "ok"
            case .missing: "MISSING"
            case .unavailable: "unavailable"
            }
            print("  \(check.name.column(22)) \(mark.column(12)) \(check.detail)")
        }
    }
}

/// The doctor's checks, each computed from the machine, never assumed.
enum DoctorChecks {
    static func run(home: AppexHome) async -> [DoctorCommand.Check] {
        var checks: [DoctorCommand.Check] = []
        func add(_ area: String, _ name: String, _ state: DoctorCommand.Check.State, _ detail: String) {
            checks.append(.init(area: area, name: name, state: state, detail: detail))
        }
        let source = ProcessInfo.processInfo.environment["APPEX_HOME"] != nil ? "APPEX_HOME" : "XDG base directories"
        add("Installation", "data folder", .ok, "\(home.dataDirectory.path) (from \(source))")
        add("Installation", "runtime folder", .ok, home.runtimeDirectory.path)
        var installed: [InstalledExtension] = []
        do {
            let registry = try Registry(home: home)
            installed = try registry.extensions()
            let apps = try registry.apps()
            let extensions = apps.reduce(0) { $0 + $1.extensions.count }
            let disabled = try registry.extensions().filter { !$0.isEnabled }.count
            add("Installation", "registry", .ok, "\(home.registryURL.path): \(apps.count) apps, \(extensions) extensions (\(disabled) disabled), generation \(try registry.generation())")
        } catch {
            add("Installation", "registry", .unavailable, "\(error)")
        }
        let points = ExtensionPoint.catalog.all
        add("Extension points", "hosted", .ok, points.filter { $0.support == .hosted }.map(\.name).joined(separator: ", "))
        add("Extension points", "recognized only", .ok, "\(points.filter { $0.support == .recognized }.count) Apple points install but are not offered yet")
        let mime = URL(fileURLWithPath: SharedMIMEInfo.defaultDirectory)
        if FileManager.default.fileExists(atPath: mime.appendingPathComponent("aliases").path) {
            add("Uniform types", "shared-mime-info", .ok, "\(mime.path): MIME aliases and sub-classes are used for lookups")
        } else {
            add("Uniform types", "shared-mime-info", .missing, "\(mime.path) has no MIME database; the built-in table is used alone (install shared-mime-info)")
        }
        if let error = UTTypeGraph.systemLoadError {
            add("Uniform types", "built-in types", .missing, "\(error) (set APPEX_SYSTEM_TYPES to the table's path)")
        } else {
            add("Uniform types", "built-in types", .ok, "\(UTTypeGraph.system.declarations.count) declarations")
        }
        do throws(ErrorInfo) {
            let executable = try DaemonConnector.daemonExecutable()
            if let daemon = try? await DaemonClient.connect(home: home, role: .cli, startIfNeeded: false) {
                add("Runtime", "appexd", .ok, "running, pid \(daemon.daemonPID), at \(home.daemonSocketURL.path)")
                daemon.close()
            } else {
                add("Runtime", "appexd", .ok, "not running; hosts and the CLI start \(executable) on demand")
            }
        } catch {
            add("Runtime", "appexd", .missing, error.message + " " + error.recoverySuggestion)
        }
        add("Runtime", "memory watch", .ok, "appexd reads the memory each extension has written (not the files it maps) every 50 ms and ends one over its point's limit (reason: memory limit)")
        switch Cgroup.Parent.discover(.memory) {
        case .success(let parent):
            add("Runtime", "memory hard limit", .ok, "each extension in a memory cgroup of its own under \(parent), capped a quarter (at least 16 MiB) above its point's limit")
        case .failure(let unavailable):
            add("Runtime", "memory hard limit", .unavailable, "no memory cgroup can be made (\(unavailable.reason)); only the footprint watch applies")
        }
        add("Runtime", "address-space limit", .ok, "RLIMIT_AS of each extension at its hard memory limit (its point's limit and a quarter) plus 4 GiB for code, stacks and malloc arenas: a coarse backstop against mapping tens of GiB where no cgroup holds it")
        add("Runtime", "deadlines", .ok, "launch (check-in) 1 s by default, request deadlines per point, idle grace per point; see docs/runtime.md")
        let sandbox = Sandbox()
        for layer in sandbox.layers {
            switch layer.state {
            case .active(let detail): add("Sandbox", layer.kind.rawValue, .ok, "the kernel offers it: \(detail)")
            case .unavailable(let reason): add("Sandbox", layer.kind.rawValue, .unavailable, reason)
            }
        }
        if sandbox.isOff {
            add("Sandbox", "mode", .unavailable, "APPEX_SANDBOX=off: appexd launches extensions with NO sandbox layer; for measuring and debugging only")
        } else {
            add("Sandbox", "strict mode", .ok, sandbox.isStrict
                ? "APPEX_SANDBOX=strict: a launch fails if a layer is missing"
                : "not strict: a missing layer is reported, not an error (APPEX_SANDBOX=strict makes it one)")
        }
        add("Sandbox", "extensions", .ok, "appexd launches every extension with the layers above: it runs and reads its bundle, its app's Frameworks and the system; writes only its container (with its tmp) and its entitled app groups' containers; connects over TCP only with com.apple.security.network.client")
        switch Cgroup.Parent.discover(.pids) {
        case .success(let parent):
            add("Sandbox", "process limit", .ok, "each extension in a pids cgroup of its own under \(parent), capped at its point's process limit (\(ExtensionPointPolicy(memoryLimit: 0).processLimit) processes and threads by default)")
        case .failure(let unavailable):
            add("Sandbox", "process limit", .unavailable, "no pids cgroup can be made (\(unavailable.reason)); only RLIMIT_NPROC in the extension's user namespace applies, and not to root")
        }
        LauncherChecks.run(extensions: installed, add: add)
        let browsers = BrowserSetup(appex: home)
        for browser in Browser.allCases {
            switch browsers.status(of: browser) {
            case .installed(let manifest, let host): add("Browser", browser.displayName, .ok, "\(manifest.path) starts \(host)")
            case .notInstalled: add("Browser", browser.displayName, .missing, "no native messaging host; `appex browser install --\(browser.rawValue)` sets it up (docs/browser.md)")
            case .broken(let manifest, let reason): add("Browser", browser.displayName, .missing, "\(manifest.path): \(reason)")
            }
        }
        for (name, folder, hint) in [("Chromium extension", browsers.chromiumExtensionFolder, "to load unpacked; in its details, turn on Allow User Scripts"),
                                     ("Firefox extension", browsers.firefoxExtensionFolder, "and \(browsers.firefoxPackage.lastPathComponent) beside it, to load")] {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("manifest.json").path) {
                add("Browser", name, .ok, "\(folder.path), \(hint)")
            } else {
                add("Browser", name, .missing, "not written; `appex browser install` writes it to \(folder.path)")
            }
        }
        return checks
    }
}
