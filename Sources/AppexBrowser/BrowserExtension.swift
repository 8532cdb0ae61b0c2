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
}
