import AppexCore

/// What `appex new` writes for one extension point: the principal class in the shape Xcode's
/// template gives it, the Info.plist's `NSExtension` entries, the test, and the command that
/// runs it. ``NewPackage`` puts it into a package.
struct PointTemplate: Sendable {
    /// The point, as `appex new` names it: `share`, `action` or `today`.
    var name: String
    var point: ExtensionPoint
    /// What the extension target's name adds to the package's: `UpperAction`.
    var targetSuffix: String
    /// The principal class, as Xcode names it.
    var principalClass: String
    /// Appex's modules the test needs beside `AppexExtensionTesting`.
    var testModules: [String]
    /// `NSExtensionAttributes`.
    var attributes: [String: PropertyListValue]
    /// The keys of the group's shared defaults the app and the extension share, with `--group`.
    var sharedKeys: [String]
    /// The principal class's source, for a package called `name`, with `group` if asked.
    var source: @Sendable (_ names: TemplateNames) -> String
    /// The test's body, in a test function that has `host` and `identifier`.
    var testBody: @Sendable (_ names: TemplateNames) -> String
    /// How to run it once installed.
    var runCommand: @Sendable (_ names: TemplateNames) -> String

    /// The points `appex new` has templates for, in the order `--help` lists them.
    static let all: [PointTemplate] = [.action, .share, .today]

    static func named(_ name: String) -> PointTemplate? {
        all.first { $0.name == name.lowercased() }
    }
}

/// The names a template fills in.
struct TemplateNames: Sendable {
    /// The package and the containing app: `Upper`.
    var package: String
    /// The extension's target, executable and bundle: `UpperAction`.
    var target: String
    var appIdentifier: String
    var extensionIdentifier: String
    /// The app group, if one was asked for.
    var group: String?
}
