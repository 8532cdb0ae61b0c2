import AppexCore
import AppexHost
import AppexLocking
import AppexRegistry
import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Glibc

/// One test's world: a private home served by its own appexd, and an app whose extensions
/// all run the fault extension, each told by its Info.plist how to misbehave.
///
/// The daemon and everything it launched are killed when the world goes away, so a failed
/// test leaves no process behind for the next.
final class FaultWorld: Sendable {
    /// One extension of the app: the fault it makes, and the principal class it names.
    struct Plugin: Sendable {
        var fault: String
        var principalClass = "AppexFaultExtension.FaultHandler"
        /// The executable its bundle runs.
        var executable = FaultWorld.faultExecutable
        /// The extension point it extends.
        var point = FaultWorld.point
        /// The app groups its entitlements name.
        var groups: [String] = []
        /// Whether its entitlements let it ask for files the user picks.
        var picksFiles = false
        /// Whether its entitlements let it connect to the network.
        var connects = false

        /// Its Entitlements.plist, or nil for none.
        var entitlements: [String: PropertyListValue]? {
            var entries: [String: PropertyListValue] = [:]
            if !groups.isEmpty { entries[Entitlements.Key.applicationGroups] = .array(groups.map(PropertyListValue.string)) }
            if picksFiles { entries[Entitlements.Key.userSelectedFilesReadOnly] = .boolean(true) }
            if connects { entries[Entitlements.Key.networkClient] = .boolean(true) }
            return entries.isEmpty ? nil : entries
        }
    }

    let test: TestHome
    /// The `appex` command, for this home.
    let appex: CommandRunner
    /// A word unique to this world, for names that must not collide with other tests'.
    let tag = "t" + UUID().uuidString.prefix(8).lowercased()
    /// Every appexd that served this home, for leak checks after one is replaced.
    private let daemonPIDs = Locked<Set<Int32>>([])
    private let installed = Locked<[String]>([])

    static let appIdentifier = "com.example.faults"
    /// The built fault extension.
    static let faultExecutable = AppexBuild.products.appendingPathComponent("AppexFaultExtension")
    static let daemonExecutable = AppexBuild.products.appendingPathComponent("appexd")
    /// The Action point: it has no request deadline of its own.
    static let point = "com.apple.ui-services"

    init() throws {
        test = try TestHome()
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
    }

    deinit {
        for pid in daemons() + transferProcesses() { kill(pid, SIGKILL) }
        // The extensions die with their daemon; these are only the ones a broken daemon left.
        for pid in extensionProcesses() { kill(pid, SIGKILL) }
    }

    /// The folder holding the home and the scratch space.
    var root: URL { test.scratch.deletingLastPathComponent() }

    /// The bundle identifier of the extension that makes `fault`.
    static func identifier(_ fault: String) -> String { "\(appIdentifier).\(fault.lowercased())" }

    // MARK: The daemon

    /// The settings of the tests' appexd: a generous launch deadline for a loaded machine (20 s,
    /// or what the run sets, as Support/sanitize does), and a short idle grace, so that
    /// sessions end soon after their hosts.
    static let daemonSettings = ["APPEX_LAUNCH_DEADLINE_MS": ProcessInfo.processInfo.environment["APPEX_LAUNCH_DEADLINE_MS"] ?? "20000",
                                 "APPEX_IDLE_GRACE_MS": "200"]

    /// Starts appexd for this home with `overrides` in its environment, and waits until it
    /// accepts connections. The launch deadline is generous unless overridden, so that a
    /// loaded machine never misses it by accident, and idle extensions end quickly. Its
    /// standard output and error go to `log`, by default its log in the runtime folder.
    func startDaemon(_ overrides: [String: String] = [:], log logPath: String? = nil) async throws {
        var environment = test.environment.merging(Self.daemonSettings) { $1 }
        environment.merge(overrides) { $1 }
        try test.home.prepareRuntimeDirectory()
        let log = try FileDescriptor.open(logPath ?? test.home.daemonLogURL.path, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
        defer { log.close() }
        _ = try ProcessLaunch(executable: Self.daemonExecutable.path, environment: environment, descriptors: [(log, 1), (log, 2)])
            .spawnDetached()
        // Tried once more after the deadline: a test that was kept waiting for a thread (the
        // deadline passing meanwhile) still finds an appexd that started in time.
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let last = ContinuousClock.now >= deadline
            if let probe = try? UnixSocket.connect(to: test.home.daemonSocketURL.path) {
                probe.close()
                _ = daemons()
                return
            }
            if last { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw WorldError("appexd did not accept connections within 30 s; its log: \(daemonLog)")
    }

    /// The live appexd processes serving this home, found from /proc.
    func daemons() -> [Int32] {
        let found = homeProcesses(running: "appexd")
        daemonPIDs.withLock { $0.formUnion(found) }
        return found
    }

    /// The live transfers' processes (appex-transfers) of this home, found from /proc.
    func transferProcesses() -> [Int32] {
        homeProcesses(running: "appex-transfers")
    }

    /// The live processes of `program` whose environment selects this home. A child that
    /// one of them has forked and not yet replaced by another program (the launcher, an
    /// extension) runs `program` too for that moment: it is not counted.
    private func homeProcesses(running program: String) -> [Int32] {
        let home = "APPEX_HOME=\(test.home.dataDirectory.path)"
        let running = Self.processes().filter { pid in
            guard Self.executable(of: pid)?.hasSuffix("/\(program)") == true,
                  let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == home }
        }
        return running.filter { !running.contains(Self.parent(of: $0) ?? 0) }
    }

    /// The parent of process `pid`, from /proc/PID/stat: the field after the command's
    /// closing parenthesis and the state.
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// What appexd wrote, with what its extensions wrote to standard error: for failure messages.
    var daemonLog: String {
        (try? String(contentsOf: test.home.daemonLogURL, encoding: .utf8)) ?? "(no log)"
    }

    /// What the transfers' processes wrote: for failure messages.
    var transfersLog: String {
        (try? String(contentsOf: test.home.transfersLogURL, encoding: .utf8)) ?? "(no log)"
    }

    // MARK: The app

    /// Writes and installs the app with one extension for each of `plugins`, on a thread of
    /// its own: it copies the fault extension's executable twice for each. The app's own
    /// executable is `appExecutable`, or a small program that does nothing; its entitlements
    /// name `appGroups`, and it exports the types `appTypes` declares. Throws after 60 s, saying so.
    func install(_ plugins: [Plugin], appExecutable: URL? = nil, appGroups: [String] = [], appTypes: [PropertyListValue] = []) async throws {
        do {
            try await bounded(seconds: 60) {
                try await onThread { try self.installBlocking(plugins, appExecutable: appExecutable, appGroups: appGroups, appTypes: appTypes) }
            }
        } catch let error as TimedOut {
            throw WorldError("installing \(plugins.map(\.fault)) took more than \(error.seconds) s")
        }
    }

    private func installBlocking(_ plugins: [Plugin], appExecutable: URL?, appGroups: [String], appTypes: [PropertyListValue]) throws {
        var app = BundleBuilder.app(Self.appIdentifier, name: "Faults", in: test.scratch.appendingPathComponent("bundles-\(UUID().uuidString.prefix(8))"))
        if !appTypes.isEmpty { app.info["UTExportedTypeDeclarations"] = .array(appTypes) }
        if let appExecutable { app.executable = appExecutable }
        if !appGroups.isEmpty { app.entitlements = [Entitlements.Key.applicationGroups: .array(appGroups.map(PropertyListValue.string))] }
        for plugin in plugins {
            app.addExtension(
                plugin.fault.prefix(1).uppercased() + plugin.fault.dropFirst(), identifier: Self.identifier(plugin.fault), point: plugin.point,
                attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"],
                entitlements: plugin.entitlements,
                executable: plugin.executable)
            let index = app.plugIns.count - 1
            guard case .dictionary(var manifest)? = app.plugIns[index].info["NSExtension"] else { continue }
            manifest["AppexFault"] = .string(plugin.fault)
            manifest["NSExtensionPrincipalClass"] = .string(plugin.principalClass)
            app.plugIns[index].info["NSExtension"] = .dictionary(manifest)
        }
        let url = try app.write()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        _ = try Registry(home: test.home).install(appAt: url)
        installed.withLock { $0 = plugins.map { Self.identifier($0.fault) } }
    }

    /// Writes and installs another app, such as one that declares an extension point.
    func install(_ app: BundleBuilder) async throws {
        try await onThread {
            let url = try app.write()
            defer { try? FileManager.default.removeItem(at: url) }
            _ = try Registry(home: self.test.home).install(appAt: url)
        }
    }

    /// Writes and installs the app with one extension for each of `faults`.
    func install(_ faults: String...) async throws {
        try await install(faults.map { Plugin(fault: $0) })
    }

    /// Installs Fault App, which declares the URL scheme `faultapp` and runs
    /// AppexApplicationHelper when appexd opens a URL of it.
    func installURLApp() async throws {
        var app = BundleBuilder.app("com.example.faultapp", name: "Fault App", in: test.scratch.appendingPathComponent("url-app"))
        app.info["CFBundleURLTypes"] = .array([.dictionary(["CFBundleURLSchemes": .array([.string("faultapp")])])])
        app.executable = AppexBuild.products.appendingPathComponent("AppexApplicationHelper")
        try await install(app)
    }

    /// The installed extension that makes `fault`, as a host in this process sees it.
    func `extension`(_ fault: String) async throws -> NSExtension {
        try await NSExtension.extension(withIdentifier: Self.identifier(fault), home: test.home)
    }

    /// The temporary folder of the installed extension that makes `fault`.
    func containerTemporaryDirectory(_ identifier: String) -> URL {
        test.home.container(for: identifier).appendingPathComponent("tmp")
    }

    /// The identifiers of the installed extensions.
    var installedIdentifiers: [String] { installed.withLock { $0 } }

    // MARK: Processes

    /// The live extension processes of this home: those running an executable installed
    /// under it. A sandboxed extension is two: the init of its pid namespace, and under it
    /// the extension itself. One that appexd's launcher forked (docs/zygote.md) runs the
    /// launcher's executable, and has its own mapped: it and its init count too.
    func extensionProcesses() -> [Int32] {
        let prefix = root.resolvingSymlinksInPath().path + "/"
        let processes = Self.processes()
        let running = processes.filter { pid in
            guard let executable = Self.executable(of: pid) else { return false }
            if executable.hasPrefix(prefix) { return true }
            guard executable.hasSuffix("/appex-launcher") else { return false }
            // Read to its end: Foundation read only the first page of /proc files, and a forked
            // extension's program is mapped past the launcher's own libraries.
            let maps = KernelFile.text(at: "/proc/\(pid)/maps") ?? ""
            return maps.contains(" " + prefix)
        }
        let inits = running.compactMap { ProcessTree.parent(of: $0) }.filter { ProcessTree.name(of: $0) == "appex-init" }
        return Array(Set(running + inits)).sorted()
    }

    /// The launcher of this home's running appexd, once it has started: appexd's child that
    /// runs `appex-launcher`.
    func launcherProcess() -> Int32? {
        daemons().lazy.flatMap { ProcessTree.children(of: $0) }.first { Self.executable(of: $0)?.hasSuffix("/appex-launcher") == true }
    }

    /// The extension processes appexd started, one per session: the sandboxes' inits.
    func extensionSessions() -> [Int32] {
        extensionProcesses().filter { ProcessTree.name(of: $0) == "appex-init" }
    }

    /// Every appexd that has served this home, including ones now gone.
    var everyDaemon: Set<Int32> {
        _ = daemons()
        return daemonPIDs.withLock { $0 }
    }

    /// The pids of live processes, zombies left out.
    static func processes() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            return !status.isEmpty && !status.contains("State:\tZ")
        }
    }

    static func executable(of pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }
}

/// A world that could not be set up.
struct WorldError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
