import AppexRegistry
import AppexCore
import ArgumentParser

struct OrderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "order",
        abstract: "Set the order in which hosts offer a point's extensions.",
        discussion: "The named extensions come first, in the order given; the others follow by identifier."
    )

    @Option(name: .shortAndLong, help: "The extension point (identifier or name, such as share).", completion: Completions.points)
    var point: String

    @Argument(help: "Extension identifiers, first to last.", completion: Completions.extensions)
    var identifiers: [String]

    @Flag(help: "Print the point's extensions, in their new order, as JSON.")
    var json = false

    func run() throws {
        let registry = try RegistryAccess.open()
        let points = try RegistryAccess.points(registry)
        let pointIdentifier = try RegistryAccess.point(point, in: points).id
        try RegistryAccess.run { () throws(RegistryError) in try registry.setOrder(identifiers, point: pointIdentifier) }
        let ordered = try RegistryAccess.run { () throws(RegistryError) in try registry.extensions(point: pointIdentifier) }
        if json { return try Output.json(ordered.map { ExtensionSummary($0, points: points) }) }
        for plugIn in ordered { print(plugIn.listLine(verbose: false)) }
    }
}
