import AppexCore
import AppexRegistry
import AppexSystem
import AppexWire
import Foundation

/// How appexd starts an extension's process: its executable with the control channel at
/// descriptor 3 and the session at 4, standard output and error to appexd's log, in its
/// container, with a small environment and its point's address-space backstop.
enum ExtensionLaunch {
    /// The variables an extension inherits from appexd: the language, and the type table
    /// when one is named.
    static let inheritedVariables = ["LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "APPEX_SYSTEM_TYPES"]

    static func make(_ installed: InstalledExtension, policy: ExtensionPointPolicy, home: AppexHome,
                     control: FileDescriptor, session: FileDescriptor, log: FileDescriptor?) -> ProcessLaunch {
        let container = home.container(for: installed.identifier)
        let tmp = container.appendingPathComponent("tmp")
        try? FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        var environment: [String: String] = [
            "HOME": container.path,
            "TMPDIR": tmp.path,
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            ExtensionEnvironment.bundlePath: installed.url.path,
            ExtensionEnvironment.bundleIdentifier: installed.identifier,
            ExtensionEnvironment.executableName: installed.info.executable,
        ]
        if let principalClass = installed.manifest.principalClass { environment[ExtensionEnvironment.principalClass] = principalClass }
        let inherited = ProcessInfo.processInfo.environment
        for name in inheritedVariables {
            if let value = inherited[name] { environment[name] = value }
        }
        var descriptors = [(control, Int32(3)), (session, Int32(4))]
        if let log { descriptors += [(log, 1), (log, 2)] }
        return ProcessLaunch(executable: installed.executableURL.path, environment: environment,
                             descriptors: descriptors, directory: container.path, diesWithParent: true,
                             addressSpaceLimit: MemoryLimits.addressSpaceLimit(for: policy.memoryLimit))
    }
}
