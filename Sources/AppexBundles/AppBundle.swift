public import AppexCore
public import Foundation

/// A containing app read from disk: its Info.plist, entitlements, localisations and extensions.
public struct AppBundle: Sendable, Hashable {
    /// Where the `.app` folder is.
    public var url: URL
    /// The app's Info.plist.
    public var info: BundleInfo
    /// The app's Entitlements.plist, or none.
    public var entitlements: Entitlements
    /// `InfoPlist.strings` tables by language code (`en`, `de`, `pt-BR`).
    public var localizedStrings: [String: [String: String]]
    /// The shared libraries in `Frameworks/`, by file name.
    public var frameworks: [String]
    /// The extensions in `PlugIns/`.
    public var extensions: [ExtensionBundle]

    public init(
        url: URL, info: BundleInfo, entitlements: Entitlements = .none,
        localizedStrings: [String: [String: String]] = [:], frameworks: [String] = [], extensions: [ExtensionBundle] = []
    ) {
        self.url = url
        self.info = info
        self.entitlements = entitlements
        self.localizedStrings = localizedStrings
        self.frameworks = frameworks
        self.extensions = extensions
    }

    /// The app's name for people, in the first of `languages` that it is localised for.
    public func displayName(languages: [String] = PreferredLanguages.current) -> String {
        Localization.string("CFBundleDisplayName", in: localizedStrings, languages: languages)
            ?? info.displayName
            ?? Localization.string("CFBundleName", in: localizedStrings, languages: languages)
            ?? info.name
            ?? info.identifier
    }
}

/// An extension read from disk, inside its containing app's `PlugIns/`.
public struct ExtensionBundle: Sendable, Hashable {
    /// Where the `.appex` folder is.
    public var url: URL
    /// The extension's Info.plist.
    public var info: BundleInfo
    /// The extension's `NSExtension` dictionary.
    public var manifest: ExtensionManifest
    /// The extension's Entitlements.plist, or none.
    public var entitlements: Entitlements
    /// `InfoPlist.strings` tables by language code.
    public var localizedStrings: [String: [String: String]]

    public init(
        url: URL, info: BundleInfo, manifest: ExtensionManifest, entitlements: Entitlements = .none,
        localizedStrings: [String: [String: String]] = [:]
    ) {
        self.url = url
        self.info = info
        self.manifest = manifest
        self.entitlements = entitlements
        self.localizedStrings = localizedStrings
    }

    /// The extension's name for people: its own localised `CFBundleDisplayName`, or, as on
    /// Apple's systems, its containing app's name.
    public func displayName(in app: AppBundle, languages: [String] = PreferredLanguages.current) -> String {
        Localization.string("CFBundleDisplayName", in: localizedStrings, languages: languages)
            ?? info.displayName
            ?? app.displayName(languages: languages)
    }
}
