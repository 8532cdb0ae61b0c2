import AppexCore
import AppexWire
import ArgumentParser
import Foundation

/// `appex`: install, inspect and query app extensions.
@main
struct Appex: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appex",
        abstract: "The app extension system for Linux: install apps, list and query their extensions, validate bundles.",
        discussion: """
            Data lives in $APPEX_HOME, or $XDG_DATA_HOME/appex when APPEX_HOME is unset. pluginkit's spellings work \
            too: -m (list), -e use|ignore -i ID (enable, disable), -a APP (install), -r APP (uninstall).
            """,
        version: "appex \(AppexVersion.release) (wire protocol \(WireVersion.current))",
        subcommands: [
            DemoCommand.self, InstallCommand.self, UninstallCommand.self, ListCommand.self, InfoCommand.self, PointsCommand.self,
            EnableCommand.self, DisableCommand.self, OrderCommand.self, SchemesCommand.self, QueryCommand.self, MatchCommand.self,
            ValidateCommand.self, BundleCommand.self, NewCommand.self, DebugCommand.self, TypesCommand.self, DoctorCommand.self, PsCommand.self, LogCommand.self, RunCommand.self, ShareCommand.self, ActionCommand.self, TodayCommand.self, TransfersCommand.self, BrowserCommand.self, DaemonCommand.self,
        ]
    )

    /// Runs the command, with exit statuses scripts can rely on: 0 yes or done, 1 no or
    /// invalid, 2 a usage or I/O error. ArgumentParser's own usage errors become 2. With
    /// `--json`, a failure is a JSON object on stdout (``CommandFailure/Report``), so that
    /// scripts read one format.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            arguments = try PluginKitSpelling.translate(arguments) ?? arguments
            try SubcommandCheck.check(arguments, commands: ["help"] + configuration.subcommands.compactMap { $0.configuration.commandName })
            var command = try parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            fail(failure, json: json)
        } catch {
            let code = exitCode(for: error)
            if code == .success || code == .validationFailure && message(for: error).isEmpty {
                exit(withError: error)
            }
            if json, code == .validationFailure {
                let command = arguments.first.map { " \($0)" } ?? ""
                fail(CommandFailure(status: CommandFailure.trouble, message(for: error), hint: "`appex help\(command)` shows the usage", code: "usage"), json: true)
            } else if json {
                fail(CommandFailure(status: code.rawValue, message(for: error)), json: true)
            }
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }

    /// Says why the command failed, on stderr or as JSON on stdout, and exits with its status.
    private static func fail(_ failure: CommandFailure, json: Bool) -> Never {
        if json, !failure.message.isEmpty {
            try? Output.json(failure.report)
        } else if !failure.message.isEmpty {
            // A message may quote what an extension said; it can't drive the terminal.
            var message = failure.message.escapingControlCharacters(keepingLineBreaks: true)
            if message.hasPrefix("error: "), Colour.isWanted(on: STDERR_FILENO) {
                message = Colour.red("error") + message.dropFirst(5)
            }
            FileHandle.standardError.write(Data("appex: \(message)\n".utf8))
        }
        Foundation.exit(failure.status)
    }
}
