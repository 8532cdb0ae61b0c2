import AppexCore
import AppexRegistry
import AppexWire

extension Registry {
    /// `identifier` as installed, with its point, if it may be launched: installed, enabled,
    /// and of a point Appex hosts that admits it; otherwise an error that says which and what
    /// to do. The registry answers from memory while its generation is unchanged (one row
    /// read per launch); a change by any process is seen at the next one.
    func launchable(_ identifier: String) throws(ErrorInfo) -> (InstalledExtension, ExtensionPoint) {
        let found: InstalledExtension?
        let points: ExtensionPointCatalog
        do {
            found = try self.extension(identifier)
            points = try extensionPoints()
        } catch {
            throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 2, message: "The registry could not be read: \(error)")
        }
        guard let found else {
            throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 1, message: "No extension \(identifier) is installed.",
                            recoverySuggestion: "Run `appex list` to see the installed extensions.")
        }
        guard found.isEnabled else {
            throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 4, message: "\(found.displayName) (\(identifier)) is disabled.",
                            recoverySuggestion: "Run `appex enable \(identifier)` to turn it on.")
        }
        guard let point = points[found.pointIdentifier] else {
            throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 5,
                            message: "\(identifier) extends \(found.pointIdentifier), a point no installed app declares any more.",
                            recoverySuggestion: "Install the app that declares \(found.pointIdentifier); `appex points` lists the points there are.")
        }
        guard point.support == .hosted else {
            throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 5,
                            message: "\(identifier) extends \(found.pointIdentifier), a point Appex recognizes but does not host.")
        }
        guard point.admitsExtensions(ofApp: found.appIdentifier) else {
            throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 5,
                            message: "\(identifier) extends \(point.name) (\(point.id)), which \(point.declaringApp ?? "its app") keeps private to its own extensions.")
        }
        return (found, point)
    }

}
