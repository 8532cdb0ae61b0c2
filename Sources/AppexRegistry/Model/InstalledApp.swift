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
public struct InstalledExtension: Sendable, Hashable {
    /// `CFBundleIdentifier`.
    public var identifier: String
    /// The containing app's `CFBundleIdentifier`.
    public var appIdentifier: String
    /// `NSExtensionPointIdentifier`.
    public var pointIdentifier: String
    /// The name for people: its own localised display name, or its containing app's.
    public var displayName: String
    /// The installed copy of the `.appex` folder.
    public var url: URL
    /// `CFBundleVersion`.
    public var version: String?
    /// `CFBundleShortVersionString`.
    public var shortVersion: String?
    /// The extension's Info.plist.
    public var info: BundleInfo
    /// The extension's entitlements.
    public var entitlements: Entitlements
    /// Whether the user lets hosts offer this extension (`pluginkit -e use|ignore`).
    public var isEnabled: Bool
    /// The user's position for this extension within its point, or `nil` for "after the ordered ones".
    public var position: Int?

    /// The `NSExtension` dictionary. Every installed extension has one.
    public var manifest: ExtensionManifest {
        info.extensionManifest ?? ExtensionManifest(pointIdentifier: pointIdentifier)
    }

    /// The extension's executable inside the installed bundle.
    public var executableURL: URL { url.appendingPathComponent(info.executable) }
}
