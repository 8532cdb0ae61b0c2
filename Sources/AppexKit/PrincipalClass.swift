import Foundation

/// Finds the principal class an extension's Info.plist names, and says clearly why when it
/// can't.
enum PrincipalClass {
    /// What went wrong, for the log, appexd and the host.
    struct Failure: Error {
        let message: String
        let recovery: String
    }

    /// The bundle's identifier and its principal class, from `bundle/Info.plist`.
    static func load(bundle: URL) throws(Failure) -> (identifier: String, type: any NSExtensionRequestHandling.Type) {
        let plistURL = bundle.appendingPathComponent("Info.plist")
        let info: [String: Any]
        do {
            let data = try Data(contentsOf: plistURL)
            guard let dictionary = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
                throw Failure(message: "\(plistURL.path) is not a dictionary", recovery: "Reinstall the app.")
            }
            info = dictionary
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "\(plistURL.path) could not be read: \(error.localizedDescription)", recovery: "Reinstall the app.")
        }
        let identifier = info["CFBundleIdentifier"] as? String ?? ""
        guard let name = (info["NSExtension"] as? [String: Any])?["NSExtensionPrincipalClass"] as? String, !name.isEmpty else {
            throw Failure(
                message: "\(plistURL.path) has no NSExtension → NSExtensionPrincipalClass",
                recovery: "Name the class that adopts NSExtensionRequestHandling, qualified by its module, such as MyExtension.ShareHandler.")
        }
        let executable = info["CFBundleExecutable"] as? String
        let candidates = name.contains(".") ? [name] : [name] + (executable.map { ["\($0).\(name)"] } ?? [])
        guard let found = candidates.lazy.compactMap({ NSClassFromString($0) }).first else {
            throw Failure(
                message: "the principal class \(name) named in \(plistURL.path) is not in this executable",
                recovery: "Qualify the name with the module that defines the class (\(executable ?? "Module").\(name.split(separator: ".").last ?? "")), and check that the class is not private.")
        }
        guard let type = found as? any NSExtensionRequestHandling.Type else {
            throw Failure(
                message: "the principal class \(name) does not adopt NSExtensionRequestHandling",
                recovery: "Declare it as `final class \(name.split(separator: ".").last ?? ""): NSExtensionRequestHandling` with an `init()`.")
        }
        return (identifier, type)
    }
}
