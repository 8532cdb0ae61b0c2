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
            throw BundleAssemblyError("can't copy \(template.path) to \(folder.path): \(error.localizedDescription)")
        }
        do {
            try fill(staging)
            try? fileManager.removeItem(at: output)
            try fileManager.moveItem(at: staging, to: output)
        } catch {
            try? fileManager.removeItem(at: staging)
            if let error = error as? BundleAssemblyError { throw error }
            throw BundleAssemblyError("can't assemble \(name): \(error.localizedDescription)")
        }
        return output
    }

    private func fill(_ app: URL) throws {
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
            let expanded = expand(info)
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

    private func expand(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .string(let text): .string(BuildSetting.expand(text, with: settings))
        case .array(let elements): .array(elements.map(expand))
        case .dictionary(let entries): .dictionary(entries.mapValues(expand))
        default: value
        }
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
