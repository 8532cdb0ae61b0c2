import AppexCore
public import Foundation

/// Turns a bundle template and built products into an installable `.app`: the Linux
/// counterpart of Xcode's build-and-embed.
///
/// A template is the bundle without its binaries: Info.plists, entitlements, `.lproj`
/// folders and any resources, with each extension in `PlugIns/NAME.appex/`. The assembler
/// copies it, expands build settings such as `$(MARKETING_VERSION)` in every Info.plist,
/// copies each bundle's `CFBundleExecutable` from the products folder, and puts shared
/// libraries into `Frameworks/`.
///
/// As Xcode does, each bundle has settings of its own, from its folder's name: for
/// `PlugIns/UpperAction.appex`, `PRODUCT_NAME` and `EXECUTABLE_NAME` are `UpperAction`,
/// `PRODUCT_MODULE_NAME` is that name as a Swift module names it (`Upper_Action` for
/// `Upper Action`), and `PRODUCT_BUNDLE_PACKAGE_TYPE` is `XPC!` (`APPL` for the app);
/// `DEVELOPMENT_LANGUAGE` is `en`. A setting given in ``settings`` is used instead.
///
/// ```swift
/// let app = try BundleAssembler(
///     products: URL(fileURLWithPath: ".build/release"),
///     settings: ["MARKETING_VERSION": "1.0", "CURRENT_PROJECT_VERSION": "1"]
/// ).assemble(template: URL(fileURLWithPath: "Notes.app"), into: URL(fileURLWithPath: "build"))
/// ```
public struct BundleAssembler: Sendable {
    /// The folder that holds the built executables, such as `.build/release`.
    public var products: URL
    /// Build settings to expand in Info.plists, by name.
    public var settings: [String: String]
    /// Shared libraries to copy into the app's `Frameworks/`.
    public var frameworks: [URL]

    public init(products: URL, settings: [String: String] = [:], frameworks: [URL] = []) {
        self.products = products
        self.settings = settings
        self.frameworks = frameworks
    }

    /// Assembles `template` into `folder`, replacing a bundle of the same name there, and
    /// returns the new bundle's URL. Validate it afterwards with ``BundleValidator``.
    public func assemble(template: URL, into folder: URL) throws(BundleAssemblyError) -> URL {
        let fileManager = FileManager.default
        let name = template.lastPathComponent
        guard name.hasSuffix(BundleLayout.appSuffix) else {
            throw BundleAssemblyError("\(template.path) is not an .app template", hint: "name the template folder NAME.app")
        }
        let output = folder.appendingPathComponent(name)
        let staging = folder.appendingPathComponent(".\(name).assembling")
        do {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            try? fileManager.removeItem(at: staging)
            try fileManager.copyItem(at: template, to: staging)
        } catch {
            throw BundleAssemblyError("can't copy \(template.path) to \(folder.path): \(FileErrorText.describe(error))")
        }
        do {
            try fill(staging, named: name)
            try? fileManager.removeItem(at: output)
            try fileManager.moveItem(at: staging, to: output)
        } catch {
            try? fileManager.removeItem(at: staging)
            if let error = error as? BundleAssemblyError { throw error }
            throw BundleAssemblyError("can't assemble \(name): \(FileErrorText.describe(error))")
        }
        return output
    }

    /// Fills `app`, a copy of the template called `name`, in place.
    private func fill(_ app: URL, named name: String) throws {
        let fileManager = FileManager.default
        var bundles = [app]
        let plugIns = app.appendingPathComponent(BundleLayout.plugIns)
        for name in ((try? fileManager.contentsOfDirectory(atPath: plugIns.path)) ?? []).sorted()
        where name.hasSuffix(BundleLayout.extensionSuffix) {
            bundles.append(plugIns.appendingPathComponent(name))
        }
        for bundle in bundles {
            let infoURL = bundle.appendingPathComponent(BundleLayout.infoPlist)
            let display = bundle.path.replacingOccurrences(of: app.deletingLastPathComponent().path + "/", with: "")
            let info: PropertyListValue
            do {
                info = try PropertyListValue(decoding: Data(contentsOf: infoURL))
            } catch {
                throw BundleAssemblyError("\(display)/\(BundleLayout.infoPlist) can't be read: \(error)", hint: "every bundle in the template needs an Info.plist")
            }
            let bundleName = bundle == app ? name : bundle.lastPathComponent
            let expanded = expand(info, with: Self.bundleSettings(of: bundleName).merging(settings) { $1 })
            try expanded.xmlData().write(to: infoURL, options: .atomic)
            guard let executable = expanded["CFBundleExecutable"]?.stringValue, !executable.contains("/"), !executable.isEmpty else {
                throw BundleAssemblyError("\(display)/\(BundleLayout.infoPlist) names no usable CFBundleExecutable", hint: "set it to the product's name")
            }
            let product = products.appendingPathComponent(executable)
            guard fileManager.isExecutableFile(atPath: product.path) else {
                throw BundleAssemblyError(
                    "the product \(executable) for \(display) is not in \(products.path)",
                    hint: "build it first, such as `swift build --product \(executable)`, or point --products at the build folder"
                )
            }
            let destination = bundle.appendingPathComponent(executable)
            try? fileManager.removeItem(at: destination)
            try fileManager.copyItem(at: product, to: destination)
            try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: destination.path)
        }
        if !frameworks.isEmpty {
            let folder = app.appendingPathComponent(BundleLayout.frameworks)
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            for library in frameworks {
                let destination = folder.appendingPathComponent(library.lastPathComponent)
                try? fileManager.removeItem(at: destination)
                try fileManager.copyItem(at: library, to: destination)
            }
        }
    }

    private func expand(_ value: PropertyListValue, with settings: [String: String]) -> PropertyListValue {
        switch value {
        case .string(let text): .string(BuildSetting.expand(text, with: settings))
        case .array(let elements): .array(elements.map { expand($0, with: settings) })
        case .dictionary(let entries): .dictionary(entries.mapValues { expand($0, with: settings) })
        default: value
        }
    }

    /// The settings Xcode gives a bundle from its target, here from the bundle's folder
    /// name, such as `UpperAction.appex`.
    static func bundleSettings(of folderName: String) -> [String: String] {
        let isExtension = folderName.hasSuffix(BundleLayout.extensionSuffix)
        let name = String(folderName.dropLast(isExtension ? BundleLayout.extensionSuffix.count : BundleLayout.appSuffix.count))
        return [
            "PRODUCT_NAME": name, "EXECUTABLE_NAME": name, "PRODUCT_MODULE_NAME": moduleName(of: name),
            "PRODUCT_BUNDLE_PACKAGE_TYPE": isExtension ? "XPC!" : "APPL", "DEVELOPMENT_LANGUAGE": "en",
        ]
    }

    /// `name` as the Swift module of a product of that name: each character that can't be
    /// in an identifier becomes `_`, and a leading digit gets one before it.
    static func moduleName(of name: String) -> String {
        let characters = name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }
        let module = String(characters)
        return module.first?.isNumber == true ? "_" + module : module
    }
}

/// Why a bundle could not be assembled, and what to do.
public struct BundleAssemblyError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    public var description: String { hint.map { "\(message) (\($0))" } ?? message }
}
