public import Foundation

/// One of Appex's programs that another starts, such as appexd, which `appex` starts, or
/// appex-transfers, which appexd starts. It is found at the path its environment variable
/// names, else beside the running program, else on `PATH`.
public struct CompanionProgram: Sendable {
    /// The executable's file name, such as `appexd`.
    public let name: String
    /// The environment variable that, set, gives its path, such as `APPEX_DAEMON`.
    public let variable: String

    public static let daemon = CompanionProgram(name: "appexd", variable: "APPEX_DAEMON")
    public static let transfers = CompanionProgram(name: "appex-transfers", variable: "APPEX_TRANSFERS")
    /// The process appexd forks extensions from, with the shared Swift runtime loaded
    /// (docs/zygote.md). `APPEX_LAUNCHER=off` makes appexd spawn every extension.
    public static let launcher = CompanionProgram(name: "appex-launcher", variable: "APPEX_LAUNCHER")
    /// The browsers' native messaging host, whose path `appex browser install` writes.
    public static let browserHost = CompanionProgram(name: "appex-browser", variable: "APPEX_BROWSER_HOST")

    public init(name: String, variable: String) {
        self.name = name
        self.variable = variable
    }

    /// The executable's path, or nil if it is nowhere it is looked for.
    public func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let path = environment[variable], !path.isEmpty { return path }
        let candidates = [Self.runningProgramDirectory.appendingPathComponent(name).path]
            + (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// What to say when ``locate(environment:)`` finds nothing.
    public var notFound: (message: String, suggestion: String) {
        ("\(name) was not found beside \(Self.runningProgramDirectory.path) or on PATH",
         "Build it with `swift build`, or set \(variable) to its path.")
    }

    /// The folder of the running program's executable.
    public static var runningProgramDirectory: URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let resolved = executable.path == "/proc/self/exe" ? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath() : executable
        return resolved.deletingLastPathComponent()
    }
}
