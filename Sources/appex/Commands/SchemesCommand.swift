import AppexRegistry
import ArgumentParser

/// `appex schemes`: which installed app opens each URL scheme, and the user's choice of another.
struct SchemesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schemes",
        abstract: "Show which app opens each URL scheme, or choose another.",
        discussion: """
            Apps declare the URL schemes they open in CFBundleURLTypes, and two may declare one. A scheme belongs \
            to the first installed app that declares it, through its upgrades, until you choose another that \
            declares it; when its app goes, the app installed earliest among the others takes it. An extension \
            can open a URL only through the app that holds its scheme, after its host confirms.
            """,
        subcommands: [SchemesListCommand.self, SchemesSetCommand.self],
        defaultSubcommand: SchemesListCommand.self
    )
}

/// `appex schemes [list]`: each declared scheme and the app that opens it.
struct SchemesListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the URL schemes installed apps declare, and the app that opens each."
    )

    @Flag(help: "Print the schemes as JSON.")
    var json = false

    func run() throws {
        let registry = try RegistryAccess.open()
        let handlers = try RegistryAccess.run { () throws(RegistryError) in try registry.urlSchemeHandlers() }
        if json { return try Output.json(handlers) }
        if handlers.isEmpty { print("No installed app declares a URL scheme.") }
        for handler in handlers {
            let why = handler.isChosen ? "your choice" : "declared it first"
            let others = handler.otherApps.isEmpty ? "" : "; also declared by \(handler.otherApps.joined(separator: ", "))"
            print("\(handler.scheme): \(handler.appIdentifier) (\(why)\(others))")
        }
    }
}

/// `appex schemes set SCHEME APP`: the user's choice of the app that opens a scheme.
struct SchemesSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Choose the app that opens a URL scheme's URLs. It must declare the scheme."
    )

    @Argument(help: "The URL scheme, such as mailto.")
    var scheme: String

    @Argument(help: "The bundle identifier of an installed app that declares it.", completion: Completions.apps)
    var app: String

    func run() throws {
        let registry = try RegistryAccess.open()
        let handler = try RegistryAccess.run { () throws(RegistryError) in
            try registry.setHandler(ofScheme: scheme, to: app)
            return try registry.urlSchemeHandlers().first { $0.scheme == scheme.lowercased() }
        }
        print("\(scheme.lowercased()): \(handler?.appIdentifier ?? app)")
    }
}
