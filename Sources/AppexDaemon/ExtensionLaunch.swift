import AppexCore
import AppexRegistry
import AppexSandbox
import AppexSystem
import AppexWire
import Foundation

/// How appexd starts an extension's process: its executable with the control channel at
/// descriptor 3 and the session at 4, standard output and error to `output` (the pipe that
/// ``ExtensionOutput`` copies into appexd's log, each line after the extension's name), in its
/// container, with a small environment (the types installed apps declare among it) and its
/// point's address-space backstop, in the
/// sandbox its bundle and entitlements call for (``SandboxProfile/forExtension(_:home:processLimit:environment:)``).
enum ExtensionLaunch {
    /// The variables an extension inherits from appexd: the language, the type table when
    /// one is named, and a sanitized build's settings (Support/sanitize).
    static let inheritedVariables = ["LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "APPEX_SYSTEM_TYPES"] + Sanitizers.settingNames

    /// The most bytes of installed apps' type declarations an extension is given: one
    /// environment variable may hold 128 KiB as XML, which adds to them.
    static let typeDeclarationsLimit = 64 << 10

    /// The launch, or why the sandbox can't be applied (a missing layer, with `APPEX_SANDBOX=strict`).
    static func make(_ installed: InstalledExtension, policy: ExtensionPointPolicy, home: AppexHome, sandbox: Sandbox,
                     control: FileDescriptor, session: FileDescriptor, output: FileDescriptor?,
                     terminationGrace: Duration = .seconds(1), waitsForDebugger: Bool = false,
                     typeDeclarations: String? = nil) throws(SandboxError) -> ProcessLaunch {
        let container = home.container(for: installed.identifier)
        let tmp = container.appendingPathComponent("tmp")
        try? AppexHome.prepareContainer(at: container)
        try? FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        // Landlock grants a path only if it exists when the process starts.
        for group in installed.entitlements.applicationGroups {
            try? AppexHome.prepareContainer(at: home.groupContainer(for: group))
        }
        var environment: [String: String] = [
            "HOME": container.path,
            "TMPDIR": tmp.path,
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            ExtensionEnvironment.bundlePath: installed.url.path,
            ExtensionEnvironment.bundleIdentifier: installed.identifier,
            ExtensionEnvironment.executableName: installed.info.executable,
        ]
        if let principalClass = installed.manifest.principalClass { environment[ExtensionEnvironment.principalClass] = principalClass }
        let groups = installed.entitlements.applicationGroups
        if !groups.isEmpty { environment[ExtensionEnvironment.applicationGroups] = groups.joined(separator: ",") }
        if waitsForDebugger { environment[ExtensionEnvironment.waitForDebugger] = "1" }
        if let typeDeclarations { environment[ExtensionEnvironment.typeDeclarations] = typeDeclarations }
        environment[ExtensionEnvironment.terminationGrace] = String(terminationGrace.milliseconds)
        let inherited = ProcessInfo.processInfo.environment
        for name in inheritedVariables {
            if let value = inherited[name] { environment[name] = value }
        }
        var descriptors = [(control, Int32(3)), (session, Int32(4))]
        if let output { descriptors += [(output, 1), (output, 2)] }
        return ProcessLaunch(executable: installed.executableURL.path, environment: environment,
                             descriptors: descriptors, directory: container.path, diesWithParent: true,
                             addressSpaceLimit: MemoryLimits.addressSpaceLimit(for: policy.memoryLimit),
                             restrictions: sandbox.isOff
                                 ? nil : try sandbox.restrictions(for: .forExtension(installed, home: home, processLimit: policy.processLimit)))
    }

    /// What the host is told when `installed` could not be launched: what stopped it, and what to do.
    static func failure(_ installed: InstalledExtension, _ error: any Error) -> ErrorInfo {
        let name = "\(installed.displayName) (\(installed.identifier))"
        let doctor = "Run `appex doctor` to see which sandbox layers this machine gives."
        switch error {
        case let error as SandboxError:
            return ErrorInfo(domain: AppexErrorDomain.runtime, code: 3, message: "\(name) could not be launched: \(error)",
                             recoverySuggestion: doctor)
        case let error as SystemError where error.operation.hasPrefix("landlock: granting"):
            return ErrorInfo(domain: AppexErrorDomain.runtime, code: 3,
                             message: "\(name) could not be launched: its sandbox would grant more than its paths say: \(error)",
                             recoverySuggestion: "Something changed the installed app or a container after install, which only Appex should; "
                                 + "reinstall the app (`appex install`) to put back a real copy.")
        case let error as SystemError where error.operation != "spawn":
            return ErrorInfo(domain: AppexErrorDomain.runtime, code: 3,
                             message: "\(name) could not be launched: its sandbox could not be applied: \(error)",
                             recoverySuggestion: "\(doctor) Set \(Sandbox.strictSetting.name) to anything but \(Sandbox.strictSetting.value) to run with the layers there are.")
        default:
            return ErrorInfo(domain: AppexErrorDomain.runtime, code: 3, message: "\(name) could not be launched: \(error)",
                             recoverySuggestion: "Check that \(installed.executableURL.path) exists and is executable, or reinstall the app.")
        }
    }
}
