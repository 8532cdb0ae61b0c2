import Foundation
import AppexCore
import AppexRegistry
import ArgumentParser

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show an installed app or extension."
    )

    @Argument(help: "The bundle identifier of an app or an extension.", completion: Completions.appsAndExtensions)
    var identifier: String

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let registry = try RegistryAccess.open()
        if let app = try RegistryAccess.run({ () throws(RegistryError) in try registry.app(identifier) }) {
            if json { return try Output.json(AppSummary(app, points: try RegistryAccess.points(registry))) }
            print("\(app.displayName) (\(app.identifier))")
            print("  Version:    \(app.shortVersion ?? "-") (\(app.version ?? "-"))")
            print("  Path:       \(app.url.path)")
            print("  Installed:  \(app.installedAt)")
            print("  Container:  \(registry.home.container(for: app.identifier).path)")
            if !app.info.urlTypes.isEmpty { print("  URL schemes: \(app.info.urlTypes.flatMap(\.schemes).joined(separator: ", "))") }
            if !app.entitlements.applicationGroups.isEmpty { print("  App groups: \(app.entitlements.applicationGroups.joined(separator: ", "))") }
            for point in app.info.declaredPoints {
                print("  Declares:   \(point.name) (\(point.id)), \(point.visibility.rawValue): \(PointSummary.policyLine(point.policy))")
            }
            print("  Extensions:")
            for plugIn in app.extensions { print("    \(plugIn.isEnabled ? "+" : "-") \(plugIn.identifier): \(plugIn.displayName) [\(plugIn.pointIdentifier)]") }
            return
        }
        guard let plugIn = try RegistryAccess.run({ () throws(RegistryError) in try registry.extension(identifier) }) else {
            throw CommandFailure(status: CommandFailure.no, "no app or extension \(identifier) is installed", hint: "`appex list` shows what is", code: "not-installed")
        }
        let points = try RegistryAccess.points(registry)
        if json { return try Output.json(ExtensionSummary(plugIn, points: points)) }
        let point = points[plugIn.pointIdentifier]
        print("\(plugIn.displayName) (\(plugIn.identifier))")
        print("  State:      \(plugIn.isEnabled ? "enabled" : "disabled")")
        print("  Point:      \(point?.name ?? "?") (\(plugIn.pointIdentifier))")
        print("  App:        \(plugIn.appIdentifier)")
        print("  Version:    \(plugIn.shortVersion ?? "-") (\(plugIn.version ?? "-"))")
        print("  Path:       \(plugIn.url.path)")
        print("  Class:      \(plugIn.manifest.principalClass ?? "-")")
        print("  Container:  \(registry.home.container(for: plugIn.identifier).path)")
        if !plugIn.entitlements.applicationGroups.isEmpty { print("  App groups: \(plugIn.entitlements.applicationGroups.joined(separator: ", "))") }
        if let rule = plugIn.manifest.activationRule { print("  Rule:       \(RuleText.describe(rule))") }
        if let policy = point?.policy {
            print("  Policy:     \(PointSummary.policyLine(policy))")
        }
    }
}

/// A short, one-line rendering of an activation rule for people.
enum RuleText {
    static func describe(_ rule: PropertyListValue) -> String {
        switch rule {
        case .string(let predicate):
            predicate.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        case .dictionary(let entries):
            entries.sorted { $0.key < $1.key }.map { "\($0.key.replacingOccurrences(of: "NSExtensionActivation", with: "")) = \(describe($0.value))" }
                .joined(separator: ", ")
        case .integer(let value): "\(value)"
        case .boolean(let value): value ? "YES" : "NO"
        default: "\(rule)"
        }
    }
}
