import AppexCore
import AppexRegistry
import ArgumentParser

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "List the installed, enabled extensions of a point whose rules match the items, in the user's order.",
        discussion: "Exit status: 0 when some extension matches, 1 when none does, 2 on error."
    )

    @Option(name: .shortAndLong, help: "The extension point (identifier or name, such as share).", completion: Completions.points)
    var point: String

    @Option(help: "The items: JSON, inline or in a file; - reads standard input (see `appex match --help`).", completion: .file())
    var items: String

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let inputs = try ItemsFile.read(items)
        let registry = try RegistryAccess.open()
        let points = try RegistryAccess.points(registry)
        let pointIdentifier = try RegistryAccess.point(point, in: points).id
        let matches = try RegistryAccess.run { () throws(RegistryError) in try registry.query(point: pointIdentifier, items: inputs) }
        if json {
            try Output.json(matches.map { ExtensionSummary($0, points: points) })
        } else {
            for plugIn in matches { print("\(plugIn.identifier)\t\(plugIn.displayName)") }
        }
        if matches.isEmpty { throw CommandFailure.silent(CommandFailure.no) }
    }
}
