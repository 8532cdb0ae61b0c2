import AppexRegistry
import ArgumentParser

struct UninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove an app, its extensions, their containers, and app groups no other app uses."
    )

    @Argument(help: "The app's bundle identifier.", completion: Completions.apps)
    var identifier: String

    @Flag(help: "Print what was removed as JSON.")
    var json = false

    struct Removed: Encodable {
        var app: String
        var extensions: [String]
        var removedGroups: [String]
    }

    func run() throws {
        let registry = try RegistryAccess.open()
        let report = try RegistryAccess.run { () throws(RegistryError) in try registry.uninstall(identifier) }
        if json {
            return try Output.json(Removed(app: report.appIdentifier, extensions: report.extensionIdentifiers, removedGroups: report.removedGroups))
        }
        print("Uninstalled \(report.appIdentifier) and \(report.extensionIdentifiers.count) extension\(report.extensionIdentifiers.count == 1 ? "" : "s").")
        for group in report.removedGroups {
            print("  removed the container of \(group), which no other app uses")
        }
    }
}
