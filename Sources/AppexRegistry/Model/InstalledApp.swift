public import AppexCore
public import Foundation

/// A containing app as the registry knows it once installed.
public struct InstalledApp: Sendable, Hashable {
    /// `CFBundleIdentifier`.
    public var identifier: String
    /// The name for people, localised for the user's languages.
    public var displayName: String
    /// The installed copy of the `.app` folder.
    public var url: URL
    /// `CFBundleVersion`.
    public var version: String?
    /// `CFBundleShortVersionString`.
    public var shortVersion: String?
    /// The app's Info.plist.
    public var info: BundleInfo
    /// The app's entitlements.
    public var entitlements: Entitlements
    /// When this version was installed.
    public var installedAt: Date
    /// The app's extensions, in bundle-identifier order.
    public var extensions: [InstalledExtension]

    /// The app's executable inside the installed bundle.
    public var executableURL: URL { url.appendingPathComponent(info.executable) }
}

/// An extension as the registry knows it once installed, with the user's choices for it.
///
/// A value whose fields live in one immutable box, so copying it (as every query result
/// does, thousands at a time) costs a single retain.
public struct InstalledExtension: Sendable, Hashable {
    /// The stored fields.
    struct Fields: Sendable, Hashable {
        var identifier: String
        var appIdentifier: String
        var pointIdentifier: String
        var displayName: String
        var url: URL
        var version: String?
        var shortVersion: String?
        var info: BundleInfo
        var entitlements: Entitlements
        var isEnabled: Bool
        var position: Int?
        var debuggerWait: DebuggerWait?
    }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private let box: Box

    init(_ fields: Fields) {
        box = Box(fields)
    }

    /// `CFBundleIdentifier`.
    public var identifier: String { box.fields.identifier }
    /// The containing app's `CFBundleIdentifier`.
    public var appIdentifier: String { box.fields.appIdentifier }
    /// `NSExtensionPointIdentifier`.
    public var pointIdentifier: String { box.fields.pointIdentifier }
    /// The name for people: its own localised display name, or its containing app's.
    public var displayName: String { box.fields.displayName }
    /// The installed copy of the `.appex` folder.
    public var url: URL { box.fields.url }
    /// `CFBundleVersion`.
    public var version: String? { box.fields.version }
    /// `CFBundleShortVersionString`.
    public var shortVersion: String? { box.fields.shortVersion }
    /// The extension's Info.plist.
    public var info: BundleInfo { box.fields.info }
    /// The extension's entitlements.
    public var entitlements: Entitlements { box.fields.entitlements }
    /// Whether the user lets hosts offer this extension (`pluginkit -e use|ignore`).
    public var isEnabled: Bool { box.fields.isEnabled }
    /// The user's position for this extension within its point, or `nil` for "after the ordered ones".
    public var position: Int? { box.fields.position }
    /// Whether appexd starts the extension stopped, for a debugger to attach: at its next
    /// launch only, or at each; nil for neither.
    public var debuggerWait: DebuggerWait? { box.fields.debuggerWait }

    /// The `NSExtension` dictionary. Every installed extension has one.
    public var manifest: ExtensionManifest {
        info.extensionManifest ?? ExtensionManifest(pointIdentifier: pointIdentifier)
    }

    /// The extension's executable inside the installed bundle.
    public var executableURL: URL { url.appendingPathComponent(info.executable) }

    public static func == (lhs: InstalledExtension, rhs: InstalledExtension) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.fields)
    }
}
