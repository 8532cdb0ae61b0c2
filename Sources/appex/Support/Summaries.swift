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

    init(_ installed: InstalledExtension, points: ExtensionPointCatalog) {
        identifier = installed.identifier
        app = installed.appIdentifier
        point = installed.pointIdentifier
        pointName = points[installed.pointIdentifier]?.name
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
    /// The extension points the app declares.
    var declaredPoints: [PointSummary]

    init(_ installed: InstalledApp, points: ExtensionPointCatalog) {
        identifier = installed.identifier
        displayName = installed.displayName
        version = installed.version
        shortVersion = installed.shortVersion
        path = installed.url.path
        installedAt = installed.installedAt
        urlSchemes = installed.info.urlTypes.flatMap(\.schemes)
        applicationGroups = installed.entitlements.applicationGroups
        extensions = installed.extensions.map { ExtensionSummary($0, points: points) }
        declaredPoints = installed.info.declaredPoints.map(PointSummary.init)
    }
}

/// An extension point as `appex points --json` prints it.
struct PointSummary: Encodable {
    var identifier: String
    var name: String
    /// `hosted` or `recognized`.
    var support: String
    /// The app that declares it, or nil for the system's.
    var declaringApp: String?
    /// `public` or `private`.
    var visibility: String
    var memoryLimitMiB: Int
    var launchDeadlineMilliseconds: Int64
    var requestDeadlineMilliseconds: Int64?
    var requiresActivationRule: Bool
    var mayOpenURLs: Bool

    init(_ point: ExtensionPoint) {
        identifier = point.id
        name = point.name
        support = point.support == .hosted ? "hosted" : "recognized"
        declaringApp = point.declaringApp
        visibility = point.visibility.rawValue
        memoryLimitMiB = point.policy.memoryLimit / 1_048_576
        launchDeadlineMilliseconds = point.policy.launchDeadline.wholeMilliseconds
        requestDeadlineMilliseconds = point.policy.requestDeadline?.wholeMilliseconds
        requiresActivationRule = point.policy.requiresActivationRule
        mayOpenURLs = point.policy.mayOpenURLs
    }

    /// The policy in one line, for people.
    static func policyLine(_ policy: ExtensionPointPolicy) -> String {
        let request = policy.requestDeadline.map { "\($0.wholeMilliseconds) ms" } ?? "none"
        return "memory \(policy.memoryLimit / 1_048_576) MiB, launch deadline \(policy.launchDeadline.wholeMilliseconds) ms, "
            + "request deadline \(request), activation rule \(policy.requiresActivationRule ? "required" : "optional"), "
            + "opens URLs: \(policy.mayOpenURLs ? "yes" : "no")"
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
