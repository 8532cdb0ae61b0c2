import AppexCore
import AppexRegistry
import Foundation

/// Which installed app opens a URL: the one whose `CFBundleURLTypes` declares its scheme.
/// Appex opens nothing else for an extension, so a widget can launch its own app, or
/// another app that declares a scheme, and never an arbitrary program.
enum URLOpener {
    /// The app that opens `string`, or why none does.
    static func app(opening string: String, among apps: [InstalledApp]) -> Result<InstalledApp, URLRefusal> {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            return .failure(URLRefusal("\"\(string.prefix(200))\" is not a URL with a scheme"))
        }
        guard let app = apps.first(where: { $0.info.urlTypes.contains { $0.schemes.contains { $0.lowercased() == scheme } } }) else {
            return .failure(URLRefusal("no installed app declares the URL scheme \"\(scheme)\" in its CFBundleURLTypes, so nothing opens \(string.prefix(200))"))
        }
        return .success(app)
    }
}

/// Why a URL was not opened, for the extension to show.
struct URLRefusal: Error {
    let reason: String

    init(_ reason: String) { self.reason = reason }
}
