import AppexCore
import AppexRegistry
import Foundation

/// Which installed app opens a URL: the one the registry says opens its scheme, which is the
/// first installed app that declares the scheme in its `CFBundleURLTypes`, or the user's choice
/// among those that do (`appex schemes`). Appex opens nothing else for an extension, so a
/// widget can launch its own app, or another app that declares a scheme, and never an
/// arbitrary program.
enum URLOpener {
    /// The app that opens `string`, or why none does. `handler` gives the app that opens a
    /// scheme, in lower case, such as ``Registry/app(openingScheme:)``.
    static func app(opening string: String, handler: (String) throws(RegistryError) -> InstalledApp?) -> Result<InstalledApp, URLRefusal> {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            return .failure(URLRefusal("\"\(string.prefix(200))\" is not a URL with a scheme"))
        }
        let app: InstalledApp?
        do {
            app = try handler(scheme)
        } catch {
            return .failure(URLRefusal("the registry could not say which app opens \(scheme): URLs: \(error)"))
        }
        guard let app else {
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
