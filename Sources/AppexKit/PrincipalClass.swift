import AppexCore
import AppexWire
import CAppexKit
import Foundation

/// Finds the principal class an extension's Info.plist names, and says clearly why when it
/// can't.
enum PrincipalClass {
    /// What went wrong, for the log, appexd and the host.
    struct Failure: Error {
        let message: String
        let recovery: String
    }

    /// What the Info.plist declares: from appexd's environment, or read from the bundle.
    private struct Declaration {
        var identifier: String
        var className: String?
        var executable: String?
    }

    /// The bundle's identifier and its principal class: named in `environment` by appexd
    /// (`ExtensionEnvironment` in AppexWire), or else in `bundlePath/Info.plist`.
    ///
    /// The bundle is a path, not a `URL`: the first `URL` a process makes cost a forked
    /// extension's start about 0.13 ms (BENCHMARKS.md), and with appexd's environment none
    /// is needed.
    ///
    /// On the main actor, because a view controller's conformance is isolated to it, and a
    /// cast finds an isolated conformance only there.
    @MainActor
    static func load(bundlePath: String, environment: [String: String]) throws(Failure) -> (identifier: String, type: NSObject.Type) {
        let plistPath = bundlePath.hasSuffix("/") ? bundlePath + "Info.plist" : bundlePath + "/Info.plist"
        let declared: Declaration
        if let identifier = environment[ExtensionEnvironment.bundleIdentifier] {
            declared = Declaration(identifier: identifier, className: environment[ExtensionEnvironment.principalClass],
                                   executable: environment[ExtensionEnvironment.executableName])
        } else {
            declared = try read(URL(fileURLWithPath: plistPath))
        }
        guard let name = declared.className, !name.isEmpty else {
            throw Failure(
                message: "\(plistPath) has no NSExtension → NSExtensionPrincipalClass",
                recovery: "Name the class that adopts NSExtensionRequestHandling, qualified by its module, such as MyExtension.ShareHandler.")
        }
        let candidates = name.contains(".") ? [name] : [name] + (declared.executable.map { ["\($0).\(name)"] } ?? [])
        // `_typeByName` is what `NSClassFromString` ends in for a Swift name, without first
        // building Foundation's table of Objective-C class names.
        guard let found = candidates.lazy.compactMap({ _typeByName($0) }).first else {
            throw Failure(
                message: "the principal class \(name) named in \(plistPath) is not in this executable",
                recovery: "Qualify the name with the module that defines the class (\(declared.executable ?? "Module").\(name.split(separator: ".").last ?? "")), and check that the class is not private.")
        }
        let shortName = name.split(separator: ".").last.map(String.init) ?? name
        guard let type = found as? NSObject.Type else {
            throw Failure(
                message: "the principal class \(name) is not a subclass of NSObject",
                recovery: "Declare it as `class \(shortName): NSObject, NSExtensionRequestHandling`, as on Apple's systems.")
        }
        guard type is any NSExtensionRequestHandling.Type else {
            throw Failure(
                message: "the principal class \(name) does not adopt NSExtensionRequestHandling",
                recovery: "Declare it as `class \(shortName): NSObject, NSExtensionRequestHandling`, or subclass SLComposeServiceViewController or WidgetViewController.")
        }
        return (declared.identifier, type)
    }

    /// A new instance of `type`, a principal class ``load(bundlePath:environment:)`` found, made
    /// with its `init()`; nil if it has none.
    @MainActor
    static func instantiate(_ type: NSObject.Type) -> (any NSExtensionRequestHandling)? {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        guard let made = appex_make_principal_object(metadata) else { return nil }
        return Unmanaged<NSObject>.fromOpaque(made).takeRetainedValue() as? any NSExtensionRequestHandling
    }

    /// What `plistURL` declares, for an extension run without appexd's environment.
    private static func read(_ plistURL: URL) throws(Failure) -> Declaration {
        let info: [String: Any]
        do {
            let data = try Data(contentsOf: plistURL)
            try PropertyListValue.checkStructure(of: data)
            guard let dictionary = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
                throw Failure(message: "\(plistURL.path) is not a dictionary", recovery: "Reinstall the app.")
            }
            info = dictionary
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "\(plistURL.path) could not be read: \(FileErrorText.describe(error))", recovery: "Reinstall the app.")
        }
        return Declaration(identifier: info["CFBundleIdentifier"] as? String ?? "",
                           className: (info["NSExtension"] as? [String: Any])?["NSExtensionPrincipalClass"] as? String,
                           executable: info["CFBundleExecutable"] as? String)
    }
}
