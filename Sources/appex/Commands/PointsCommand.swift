import AppexCore
import AppexRegistry
import ArgumentParser

/// `appex points`: the extension points extensions may extend, with their policies.
struct PointsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "points",
        abstract: "List the extension points: the system's and those installed apps declare, each with its policy.",
        discussion: "An app declares points under AppexExtensionPoints in its Info.plist (docs/extension-points.md)."
    )

    @Flag(help: "Also list the Apple points Appex recognizes but does not host.")
    var all = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let registry = try RegistryAccess.open()
        let points = try RegistryAccess.points(registry).all.filter { all || $0.support == .hosted }
        if json { return try Output.json(points.map(PointSummary.init)) }
        for point in points {
            let origin = point.declaringApp.map { "declared by \($0), \(point.visibility.rawValue)" }
                ?? (point.support == .hosted ? "system" : "recognized, not hosted")
            print("\(point.id)  \(point.name)  (\(origin))")
            print("    \(PointSummary.policyLine(point.policy))")
        }
    }
}
