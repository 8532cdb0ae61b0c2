import AppexCore
import AppexRegistry
import Foundation

/// An installed extension as `--json` prints it.
struct ExtensionSummary: Encodable {
    var identifier: String
    var app: String
    var point: String
    var pointName: String?
    var displayName: String
    var enabled: Bool
    var position: Int?
    var version: String?
    var shortVersion: String?
    var path: String
    var principalClass: String?
    var activationRule: PropertyListValue?
    var applicationGroups: [String]

    init(_ installed: InstalledExtension) {
        identifier = installed.identifier
        app = installed.appIdentifier
        point = installed.pointIdentifier
        pointName = ExtensionPoint.catalog[installed.pointIdentifier]?.name
        displayName = installed.displayName
        enabled = installed.isEnabled
        position = installed.position
        version = installed.version
        shortVersion = installed.shortVersion
        path = installed.url.path
        principalClass = installed.manifest.principalClass
        activationRule = installed.manifest.activationRule
        applicationGroups = installed.entitlements.applicationGroups
    }
}

/// An installed app as `--json` prints it.
struct AppSummary: Encodable {
    var identifier: String
    var displayName: String
    var version: String?
    var shortVersion: String?
    var path: String
    var installedAt: Date
    var urlSchemes: [String]
    var applicationGroups: [String]
    var extensions: [ExtensionSummary]

    init(_ installed: InstalledApp) {
        identifier = installed.identifier
        displayName = installed.displayName
        version = installed.version
        shortVersion = installed.shortVersion
        path = installed.url.path
        installedAt = installed.installedAt
        urlSchemes = installed.info.urlTypes.flatMap(\.schemes)
        applicationGroups = installed.entitlements.applicationGroups
        extensions = installed.extensions.map(ExtensionSummary.init)
    }
}

extension InstalledExtension {
    /// One line as `pluginkit -m` prints it: `+` or `-`, identifier, version and, verbosely, more.
    func listLine(verbose: Bool) -> String {
        let mark = isEnabled ? "+" : "-"
        let version = shortVersion.map { "(\($0))" } ?? ""
        var line = "\(mark)    \(identifier)\(version)"
        if verbose {
            line += "\n\t       Name: \(displayName)"
            line += "\n\t      Point: \(pointIdentifier)"
            line += "\n\t        App: \(appIdentifier)"
            line += "\n\t       Path: \(url.path)"
        }
        return line
    }
}
