import AppexCore
import AppexRegistry
import ArgumentParser
import Foundation

struct InstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Validate an app and install it with its extensions.",
        discussion: "A newer or equal CFBundleVersion replaces the installed app; the user's choices are kept."
    )

    @Argument(help: "The .app bundle to install.", completion: .directory)
    var path: String

    @Flag(help: "Allow an older version to replace a newer one.")
    var allowDowngrade = false

    @Option(name: .customLong("share-group"), help: ArgumentHelp(
        "Let the app use an app group another installed app uses (repeatable).",
        discussion: "Only for apps of one vendor: the app can read and write everything the group holds.",
        valueName: "group"), completion: Completions.groups)
    var sharedGroups: [String] = []

    @Flag(help: "Print the installed app as JSON.")
    var json = false

    func run() throws {
        let registry = try RegistryAccess.open()
        let app: InstalledApp
        let progress = ProgressLine("Installing \(URL(fileURLWithPath: path).lastPathComponent)")
        var options = Registry.InstallOptions(allowDowngrade: allowDowngrade, sharedGroups: Set(sharedGroups))
        if !json {
            options.progress = { step in progress.show(step.rawValue) }
        }
        do throws(RegistryError) {
            defer { progress.end() }
            app = try registry.install(appAt: URL(fileURLWithPath: path), options: options)
        } catch {
            Output.diagnostics(error.diagnostics, toStandardError: true)
            throw CommandFailure(error)
        }
        if json { return try Output.json(AppSummary(app, points: try RegistryAccess.points(registry))) }
        print("Installed \(app.displayName) (\(app.identifier)) \(app.shortVersion ?? app.version ?? "") with \(app.extensions.count) extension\(app.extensions.count == 1 ? "" : "s").")
        for plugIn in app.extensions {
            print("  \(plugIn.identifier): \(plugIn.displayName) [\(plugIn.pointIdentifier)]")
        }
        let declared = app.info.urlSchemes
        let handlers = try RegistryAccess.run { () throws(RegistryError) in try registry.urlSchemeHandlers() }
        for held in handlers where declared.contains(held.scheme) && held.appIdentifier != app.identifier {
            print("The URL scheme \(held.scheme) stays with \(held.appIdentifier), which \(held.isChosen ? "you chose" : "declared it first"): "
                  + "`appex schemes set \(held.scheme) \(app.identifier)` has this app open it.")
        }
    }
}
