import AppexCore
import ArgumentParser
import Foundation

/// `appex`: install, inspect and query app extensions.
@main
struct Appex: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appex",
        abstract: "The app extension system for Linux: install apps, list and query their extensions, validate bundles.",
        discussion: "Data lives in $APPEX_HOME, or $XDG_DATA_HOME/appex when APPEX_HOME is unset.",
        subcommands: [
            DemoCommand.self, InstallCommand.self, UninstallCommand.self, ListCommand.self, InfoCommand.self, PointsCommand.self,
            EnableCommand.self, DisableCommand.self, OrderCommand.self, SchemesCommand.self, QueryCommand.self, MatchCommand.self,
            ValidateCommand.self, BundleCommand.self, NewCommand.self, DebugCommand.self, TypesCommand.self, DoctorCommand.self, PsCommand.self, LogCommand.self, RunCommand.self, ShareCommand.self, ActionCommand.self, TodayCommand.self, TransfersCommand.self, BrowserCommand.self,
        ]
    )

    /// Runs the command, with exit statuses scripts can rely on: 0 yes or done, 1 no or
    /// invalid, 2 a usage or I/O error. ArgumentParser's own usage errors become 2.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            if !failure.message.isEmpty {
                // A message may quote what an extension said; it can't drive the terminal.
                let message = failure.message.escapingControlCharacters(keepingLineBreaks: true)
                FileHandle.standardError.write(Data("appex: \(message)\n".utf8))
            }
            Foundation.exit(failure.status)
        } catch {
            let code = exitCode(for: error)
            if code == .success || code == .validationFailure && message(for: error).isEmpty {
                exit(withError: error)
            }
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
