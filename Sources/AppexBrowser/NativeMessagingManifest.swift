public import Foundation

/// A browser that Appex sets its native messaging host up for.
public enum Browser: String, Sendable, Hashable, CaseIterable {
    case chromium
    case chrome
    case firefox

    /// The name people know it by.
    public var displayName: String {
        switch self {
        case .chromium: "Chromium"
        case .chrome: "Google Chrome"
        case .firefox: "Firefox"
        }
    }

    /// Where the browser looks for a user's native messaging hosts, under `home`; a
    /// Chromium run with `--user-data-dir` looks in that folder's `NativeMessagingHosts`.
    public func hostsFolder(home: URL, userDataDirectory: URL? = nil) -> URL {
        if let userDataDirectory, self != .firefox { return userDataDirectory.appendingPathComponent("NativeMessagingHosts") }
        return switch self {
        case .chromium: home.appendingPathComponent(".config/chromium/NativeMessagingHosts")
        case .chrome: home.appendingPathComponent(".config/google-chrome/NativeMessagingHosts")
        case .firefox: home.appendingPathComponent(".mozilla/native-messaging-hosts")
        }
    }
}

/// The file that tells a browser where the Appex native messaging host is and which
/// extension may start it: Chromium's form names `allowed_origins`, Firefox's
/// `allowed_extensions`, and each allows only the Appex extension.
public struct NativeMessagingManifest: Codable, Sendable, Hashable {
    public var name: String
    public var description: String
    /// The host's absolute path.
    public var path: String
    public var type: String
    public var allowedOrigins: [String]?
    public var allowedExtensions: [String]?

    private enum CodingKeys: String, CodingKey {
        case name, description, path, type
        case allowedOrigins = "allowed_origins"
        case allowedExtensions = "allowed_extensions"
    }

    /// The manifest for `browser`, with the host at `hostPath`.
    public init(for browser: Browser, hostPath: String) {
        name = BrowserExtension.hostName
        description = "Appex: Share and Action extensions of Linux apps, for the Appex browser extension"
        path = hostPath
        type = "stdio"
        switch browser {
        case .chromium, .chrome: allowedOrigins = [BrowserExtension.chromiumOrigin]
        case .firefox: allowedExtensions = [BrowserExtension.firefoxID]
        }
    }

    /// The manifest's file name in a browser's hosts folder.
    public static var fileName: String { BrowserExtension.hostName + ".json" }

    /// The manifest as a browser reads it.
    public var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }
}
