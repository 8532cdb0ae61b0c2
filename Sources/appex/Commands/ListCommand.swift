import AppexRegistry
import AppexCore
import ArgumentParser

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List installed extensions, as pluginkit -m does: + enabled, - disabled.",
        discussion: "Extensions are listed in the user's order within each point."
    )

    @Option(name: .shortAndLong, help: "Only this extension point (identifier or name, such as share).", completion: Completions.points)
    var point: String?

    @Option(name: [.customShort("i"), .customLong("identifier")], help: "Only this extension.", completion: Completions.extensions)
    var identifier: String?

    @Flag(name: .shortAndLong, help: "Show names, points, apps and paths.")
    var verbose = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let registry = try RegistryAccess.open()
        let points = try RegistryAccess.points(registry)
        let pointIdentifier = try point.map { try RegistryAccess.point($0, in: points).id }
        var extensions = try RegistryAccess.run { () throws(RegistryError) in try registry.extensions(point: pointIdentifier) }
        if let identifier {
            extensions = extensions.filter { $0.identifier.lowercased() == identifier.lowercased() }
        }
        if json { return try Output.json(extensions.map { ExtensionSummary($0, points: points) }) }
        for plugIn in extensions {
            print(plugIn.listLine(verbose: verbose))
        }
        if extensions.isEmpty, identifier != nil {
            throw CommandFailure(status: CommandFailure.no, "no extension \(identifier!) is installed", hint: "`appex list` shows what is", code: "not-installed")
        }
    }
}
