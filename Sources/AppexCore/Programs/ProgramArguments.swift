#if canImport(Glibc)
import Glibc
#endif

/// The arguments of a program that takes none but `--help` and `--version`, such as appexd
/// and appex-transfers, which take their settings from the environment: so that
/// `appexd --help` explains rather than starts a daemon, and a stray argument is refused.
public struct ProgramArguments {
    /// The program's name: "appexd".
    public var program: String
    /// What `--version` prints after the name and the release, such as "wire protocol 8".
    public var versionDetail: String?
    /// What `--help` prints: what the program is, and the environment it reads.
    public var help: String

    public init(program: String, versionDetail: String? = nil, help: String) {
        self.program = program
        self.versionDetail = versionDetail
        self.help = help
    }

    /// What `--version` prints: "appexd 0.1.0 (wire protocol 8)".
    public var version: String {
        "\(program) \(AppexVersion.release)" + (versionDetail.map { " (\($0))" } ?? "")
    }

    /// What to do with `arguments`, the program's arguments without its name.
    public enum Action: Equatable {
        /// Run the program.
        case run
        /// Print this on standard output, and exit 0.
        case print(String)
        /// Print this on standard error, and exit 2: a usage error.
        case refuse(String)
    }

    public func action(for arguments: [String]) -> Action {
        guard let first = arguments.first else { return .run }
        if arguments.count == 1, ["-h", "--help", "help"].contains(first) { return .print(help) }
        if arguments.count == 1, ["--version", "-V"].contains(first) { return .print(version) }
        let unexpected = ["-h", "--help", "help", "--version", "-V"].contains(first) ? arguments[1] : first
        return .refuse("\(program): unexpected argument '\(unexpected)'. \(program) takes no arguments: its settings come from the environment; `\(program) --help` lists them.")
    }

    /// Handles `CommandLine.arguments`: returns if the program should run, or prints and exits.
    public func handle(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        switch action(for: arguments) {
        case .run:
            return
        case .print(let text):
            print(text)
            exit(0)
        case .refuse(let message):
            let line = Array((message + "\n").utf8)
            _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            exit(2)
        }
    }
}
