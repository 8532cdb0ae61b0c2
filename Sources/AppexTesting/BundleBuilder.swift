public import AppexCore
public import Foundation

/// Writes hand-made bundles for tests: an app with extensions, with real ELF executables,
/// whose Info.plists a test can break in any way it needs.
///
/// ```swift
/// var app = BundleBuilder.app("com.example.tool", in: folder)
/// app.addExtension("Share", identifier: "com.example.tool.share", point: "com.apple.share-services",
///                  attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"])
/// let url = try app.write()
/// ```
public struct BundleBuilder: Sendable {
    /// One extension of the app.
    public struct PlugIn: Sendable {
        public var name: String
        public var info: [String: PropertyListValue]
        public var entitlements: [String: PropertyListValue]?
        /// The program copied in as its executable.
        public var executable: URL = BundleBuilder.sampleExecutable
    }

    /// Where the `.app` folder goes.
    public var url: URL
    /// The app's Info.plist.
    public var info: [String: PropertyListValue]
    /// The app's Entitlements.plist, if any.
    public var entitlements: [String: PropertyListValue]?
    /// The program copied in as the app's executable.
    public var executable: URL = BundleBuilder.sampleExecutable
    /// The app's extensions.
    public var plugIns: [PlugIn] = []
    /// Whether to copy executables in; false leaves them out, for tests of that.
    public var includeExecutables = true

    /// A real ELF executable that bundles can carry.
    public static let sampleExecutable = URL(fileURLWithPath: "/bin/true")

    /// An app named `name` (the folder is `NAME.app`) with a minimal valid Info.plist.
    public static func app(_ identifier: String, name: String = "Tool", version: String = "1", in folder: URL) -> BundleBuilder {
        BundleBuilder(
            url: folder.appendingPathComponent("\(name).app"),
            info: [
                "CFBundleIdentifier": .string(identifier), "CFBundleExecutable": .string(name.lowercased()),
                "CFBundleName": .string(name), "CFBundleVersion": .string(version), "CFBundleShortVersionString": "1.0",
            ]
        )
    }

    /// Adds an extension with a minimal valid Info.plist for `point`, running `executable`.
    public mutating func addExtension(
        _ name: String, identifier: String, point: String, attributes: [String: PropertyListValue] = [:],
        entitlements: [String: PropertyListValue]? = nil, executable: URL = BundleBuilder.sampleExecutable
    ) {
        var manifest: [String: PropertyListValue] = [
            "NSExtensionPointIdentifier": .string(point), "NSExtensionPrincipalClass": .string("\(name).Handler"),
        ]
        if !attributes.isEmpty { manifest["NSExtensionAttributes"] = .dictionary(attributes) }
        plugIns.append(PlugIn(
            name: name,
            info: [
                "CFBundleIdentifier": .string(identifier), "CFBundleExecutable": .string(name),
                "CFBundleVersion": info["CFBundleVersion"] ?? "1", "CFBundleShortVersionString": "1.0",
                "NSExtension": .dictionary(manifest),
            ],
            entitlements: entitlements,
            executable: executable
        ))
    }

    /// Writes the bundle, replacing any folder already there, and returns its URL.
    @discardableResult
    public func write() throws -> URL {
        let fileManager = FileManager.default
        try? fileManager.removeItem(at: url)
        try writeBundle(at: url, info: info, entitlements: entitlements, executable: executable)
        for plugIn in plugIns {
            let folder = url.appendingPathComponent("PlugIns/\(plugIn.name).appex")
            try writeBundle(at: folder, info: plugIn.info, entitlements: plugIn.entitlements, executable: plugIn.executable)
        }
        return url
    }

    private func writeBundle(
        at folder: URL, info: [String: PropertyListValue], entitlements: [String: PropertyListValue]?, executable: URL
    ) throws {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        try PropertyListValue.dictionary(info).xmlData().write(to: folder.appendingPathComponent("Info.plist"))
        if let entitlements {
            try PropertyListValue.dictionary(entitlements).xmlData().write(to: folder.appendingPathComponent("Entitlements.plist"))
        }
        if includeExecutables, let name = info["CFBundleExecutable"]?.stringValue, !name.contains("/") {
            let destination = folder.appendingPathComponent(name)
            try fileManager.copyItem(at: executable, to: destination)
        }
    }
}
