import AppexGroups
import AppexIPC
import AppexSystem
import AppexWire
import CAppexKit
import Foundation

/// Runs the extension: Apple's `NSExtensionMain`, which an extension's `main.swift` calls
/// and which never returns.
///
/// ```swift
/// // main.swift of the NotesAction extension
/// import AppexKit
/// NSExtensionMain()
/// ```
///
/// It takes what it needs from the bundle's Info.plist from appexd, which read it at install
/// (`ExtensionEnvironment` in AppexWire), or else reads it; finds the principal class; checks
/// in with appexd; makes Foundation's suite of each app group the extension is entitled to
/// the group's (``FoundationGroupSuites``); and serves the host's requests on the main
/// queue, each with a new instance of the principal class, until appexd ends the process.
/// appexd launches extensions; run one with `appex run ID`. If the principal class can't be found, it says
/// so on standard error, to appexd and to the host (whose request is interrupted with that
/// reason), and exits with status 78 (`EX_CONFIG`).
///
/// It is not isolated to the main actor, so that `main.swift` calls it in Swift 5 language
/// mode too, where top-level code is not on the main actor; it must be called on the main
/// thread, as `main.swift` runs.
public func NSExtensionMain() -> Never {
    guard Thread.isMainThread else {
        StandardError.write(line: "NSExtensionMain() must be called on the main thread, from main.swift")
        exit(70)
    }
    MainActor.assumeIsolated { runExtension() }
}

/// ``NSExtensionMain()``, on the main actor.
@MainActor
private func runExtension() -> Never {
    // Only the variables it reads, each with getenv: Foundation's `ProcessInfo.environment`
    // copies the whole environment into a dictionary first, 0.3 ms of a cold start forked
    // from the launcher (BENCHMARKS.md, "Where a forked cold start's time goes").
    var environment: [String: String] = [:]
    for name in ExtensionEnvironment.startSettings {
        environment[name] = getenv(name).map { String(cString: $0) }
    }
    guard let bundlePath = environment[ExtensionEnvironment.bundlePath] else {
        StandardError.write(line: """
            \(ProcessInfo.processInfo.processName) is an app extension: appexd launches it for a host's request.
            Run it through a host, such as `appex run <extension identifier> --text hello`.
            """)
        exit(64)
    }
    if environment[ExtensionEnvironment.waitForDebugger] == "1" { waitForDebugger() }
    let principal: (identifier: String, type: NSObject.Type)
    do {
        principal = try PrincipalClass.load(bundlePath: bundlePath, environment: environment)
    } catch {
        refuseToStart(error)
    }
    let instances = PrincipalInstances(of: principal.type)
    let runtime = ExtensionRuntime(bundleIdentifier: principal.identifier) { context in
        DispatchQueue.main.async {
            MainActor.assumeIsolated { instances.begin(context) }
        }
    } ended: { requestID in
        DispatchQueue.main.async {
            MainActor.assumeIsolated { instances.end(requestID) }
        }
    }
    DaemonCalls.install(DaemonCalls.onChannel(runtime.control))
    DaemonLink.install(runtime.link)
    runtime.start()
    // Before any request reaches the principal class: `UserDefaults(suiteName: "group.…")`
    // is the group's from the start.
    let groups = environment[ExtensionEnvironment.applicationGroups]?.split(separator: ",").map(String.init) ?? []
    FoundationGroupSuites.mirror(groups)
    dispatchMain()
}

/// Waits until a debugger has attached (`appex run ID --wait-for-debugger`). Any process
/// of this user may trace it meanwhile, as Yama's ptrace_scope 1 otherwise allows only the
/// tracer's own children. From inside its pid namespace the process can't see a tracer, so
/// appexd watches for one and sends SIGCONT, which the process has once the debugger
/// continues it: attach, set breakpoints, continue.
private func waitForDebugger() {
    _ = appex_allow_any_tracer()
    ExtensionRuntime.log("waiting for a debugger before the principal class is made; `appex log` shows the pid to attach to")
    appex_wait_for_continue()
}

/// Reports why the extension can't start, on standard error and on both channels, then exits.
private func refuseToStart(_ failure: PrincipalClass.Failure) -> Never {
    ExtensionRuntime.log("can't start: \(failure.message). \(failure.recovery)")
    let error = ErrorInfo(domain: AppexErrorDomain.runtime, code: 3, message: failure.message, recoverySuggestion: failure.recovery)
    for raw in [ExtensionRuntime.controlDescriptor, ExtensionRuntime.sessionDescriptor] {
        let socket = FileDescriptor(owning: raw)
        if let bytes = try? WireMessage.failure(Failure(error: error)).frameBytes(descriptorCount: 0) {
            _ = bytes.withUnsafeBytes { try? UnixSocket.send(socket, $0, descriptors: []) }
        }
        socket.close()
    }
    exit(78)
}
