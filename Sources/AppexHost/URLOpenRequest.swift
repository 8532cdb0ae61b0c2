import AppexWire
public import Foundation

/// An extension's request to open a URL (`NSExtensionContext.open`), for the host to confirm
/// with the user before appexd launches the app that opens it.
///
/// appexd passes it on only for an extension whose point may open URLs (Today widgets), only
/// for a URL whose scheme an installed app declares in `CFBundleURLTypes`, and only to the host
/// of the request it names. The host's ``NSExtension/urlOpenConfirmationBlock`` answers.
public struct URLOpenRequest: Sendable, Hashable {
    /// The URL to open.
    public let url: URL
    /// The bundle identifier and name of the extension that asks, from the registry.
    public let extensionIdentifier: String
    public let extensionName: String
    /// The name of the app that would open it.
    public let appName: String

    public init(url: URL, extensionIdentifier: String, extensionName: String, appName: String) {
        self.url = url
        self.extensionIdentifier = extensionIdentifier
        self.extensionName = extensionName
        self.appName = appName
    }

    init?(_ asked: OpenURL) {
        guard let url = URL(string: asked.url) else { return nil }
        self.init(url: url, extensionIdentifier: asked.extensionIdentifier, extensionName: asked.extensionName, appName: asked.appName)
    }
}
