public import Foundation

/// The Appex browser extension, as this module ships it (`Extension/`), and the names that
/// tie it to its native messaging host.
public enum BrowserExtension {
    /// The extension's version, as its manifest says; the host's hello reply says it too.
    public static let version = "1.0"

    /// The native messaging host's name, which the extension connects to.
    public static let hostName = "org.appex.browser"

    /// The extension's ID in Chromium, fixed by the public key in its manifest.
    public static let chromiumID = "inibbfljmhhcnajpemkgknkghjcocimc"

    /// The extension's ID in Firefox, from `browser_specific_settings.gecko.id`.
    public static let firefoxID = "browser@appex.org"

    /// Chromium's origin for the extension, which it passes the host as its first argument.
    public static var chromiumOrigin: String { "chrome-extension://\(chromiumID)/" }

    /// The folder of the unpacked extension, for Chromium's `--load-extension` or its
    /// "Load unpacked" button.
    public static var folder: URL {
        (Bundle.module.resourceURL ?? Bundle.module.bundleURL).appendingPathComponent("Extension")
    }

    /// The oldest Firefox whose `userScripts.execute` runs a script in a world of its own.
    public static let firefoxMinimumVersion = "140.0"

    /// The extension's manifest for Firefox, made from Chromium's, so the two never part:
    /// a background script instead of a service worker, its ID in
    /// `browser_specific_settings`, and `userScripts` an optional permission, as Firefox
    /// requires, which the user grants from the popup. Chromium's key goes.
    public static func firefoxManifest() throws -> Data {
        let chromium = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
        guard var manifest = try JSONSerialization.jsonObject(with: chromium) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the extension's manifest.json is not a JSON object"])
        }
        manifest["key"] = nil
        manifest["minimum_chrome_version"] = nil
        manifest["background"] = ["scripts": ["background.js"], "type": "module"]
        manifest["permissions"] = (manifest["permissions"] as? [String] ?? []).filter { $0 != "userScripts" }
        manifest["optional_permissions"] = ["userScripts"]
        manifest["browser_specific_settings"] = ["gecko": ["id": firefoxID, "strict_min_version": firefoxMinimumVersion]]
        return try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
