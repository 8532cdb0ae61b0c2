import AppexCore
import AppexRegistry
import AppexWire
import Foundation

/// Opens a URL for an extension whose point allows it: a scheme an installed app declares in
/// `CFBundleURLTypes` launches that app with the URL; anything else goes to `xdg-open`.
enum URLOpener {
    static func open(_ string: String, call: UInt64, registry: Registry, launch: (String, [String]) -> Bool) -> OpenURLResult {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased() else {
            return OpenURLResult(call: call, opened: false, reason: "\"\(string)\" is not a URL")
        }
        let apps = (try? registry.apps()) ?? []
        if let app = apps.first(where: { $0.info.urlTypes.contains { $0.schemes.contains { $0.lowercased() == scheme } } }) {
            return launch(app.executableURL.path, [string])
                ? OpenURLResult(call: call, opened: true, reason: "")
                : OpenURLResult(call: call, opened: false, reason: "\(app.displayName) could not be launched")
        }
        let xdgOpen = ["/usr/bin/xdg-open", "/usr/local/bin/xdg-open"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let xdgOpen else {
            return OpenURLResult(call: call, opened: false, reason: "no installed app opens \(scheme): URLs, and xdg-open is not installed")
        }
        return launch(xdgOpen, [string])
            ? OpenURLResult(call: call, opened: true, reason: "")
            : OpenURLResult(call: call, opened: false, reason: "xdg-open could not be launched")
    }
}
