import AppexCore
import AppexRegistry
import AppexTesting
import Foundation
import Testing

/// The registry keeps the points installed apps declare: other apps' extensions install
/// against them and are offered for them, one app owns each identifier, and a point goes
/// with its app.
@Suite final class DeclaredPointRegistryTests {
    let test: TestHome
    let registry: Registry
    static let point = "com.example.editor.formatter"

    init() throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
    }

    /// The editor, declaring the formatter point with `declaration` merged over a name.
    func installEditor(_ declaration: [String: PropertyListValue] = [:], version: String = "1", ownFormatter: Bool = false) throws {
        var app = BundleBuilder.app("com.example.editor", name: "Editor", version: version, in: test.scratch.appendingPathComponent("editor-\(version)"))
        app.info["AppexExtensionPoints"] = .dictionary([Self.point: .dictionary(["AppexExtensionPointName": "Formatter"].merging(declaration) { $1 })])
        if ownFormatter {
            app.addExtension("Tidy", identifier: "com.example.editor.tidy", point: Self.point, attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"])
        }
        try registry.install(appAt: try app.write())
    }

    /// Another app, with a formatter for the editor's point.
    func prettier(_ identifier: String = "com.example.prettier") throws -> URL {
        var app = BundleBuilder.app(identifier, name: "Prettier", in: test.scratch.appendingPathComponent(identifier))
        app.addExtension("Pretty", identifier: "\(identifier).pretty", point: Self.point,
                         attributes: ["NSExtensionActivationRule": ["NSExtensionActivationSupportsText": true]])
        return try app.write()
    }

    let text = ActivationItems([.init(attributedContentText: "x", attachments: [.init(registeredTypeIdentifiers: ["public.plain-text"])])])

    @Test func anotherAppsExtensionOfADeclaredPointInstallsAndIsOfferedUnderItsPolicy() throws {
        try installEditor(["AppexMemoryLimit": 48, "AppexRequestDeadline": 2])
        try registry.install(appAt: try prettier())
        let point = try #require(try registry.extensionPoint(Self.point))
        #expect(point.declaringApp == "com.example.editor")
        #expect(point.policy.memoryLimit == .mebibytes(48))
        #expect(point.policy.requestDeadline == .seconds(2))
        #expect(try registry.query(point: Self.point, items: text).map(\.identifier) == ["com.example.prettier.pretty"])
        #expect(try registry.extensionPoints().all.filter { $0.declaringApp != nil }.map(\.id) == [Self.point])
    }

    @Test func anExtensionOfAPointNoInstalledAppDeclaresIsRefusedWithTheWayOut() throws {
        let error = #expect(throws: RegistryError.self) { try registry.install(appAt: try prettier()) }
        #expect(error?.code == .invalidBundle)
        let diagnostic = try #require(error?.diagnostics.first { $0.code == "unknown-extension-point" })
        #expect(diagnostic.message == "\"\(Self.point)\" is not an extension point this system knows")
        #expect(diagnostic.hint?.hasSuffix("or a point an installed app declares") == true)
    }

    @Test func aPrivatePointTakesOnlyItsOwnAppsExtensions() throws {
        try installEditor(["AppexVisibility": "private"], ownFormatter: true)
        let error = #expect(throws: RegistryError.self) { try registry.install(appAt: try prettier()) }
        #expect(error?.diagnostics.map(\.code) == ["point-private"])
        #expect(try registry.query(point: Self.point, items: text).map(\.identifier) == ["com.example.editor.tidy"])
    }

    @Test func aPointMadePrivateLaterStopsOfferingOtherAppsExtensions() throws {
        try installEditor(ownFormatter: true)
        try registry.install(appAt: try prettier())
        #expect(try registry.query(point: Self.point, items: text).count == 2)
        try installEditor(["AppexVisibility": "private"], version: "2", ownFormatter: true)
        #expect(try registry.query(point: Self.point, items: text).map(\.identifier) == ["com.example.editor.tidy"])
        #expect(try registry.extension("com.example.prettier.pretty") != nil, "installed, but not offered")
    }

    @Test func twoAppsCannotDeclareOnePoint() throws {
        try installEditor()
        // An app whose identifier also prefixes the point's.
        var impostor = BundleBuilder.app("com.example", name: "Impostor", in: test.scratch.appendingPathComponent("impostor"))
        impostor.info["AppexExtensionPoints"] = .dictionary([Self.point: ["AppexExtensionPointName": "Mine"]])
        let error = #expect(throws: RegistryError.self) { try registry.install(appAt: try impostor.write()) }
        #expect(error?.code == .invalidBundle)
        #expect(error?.diagnostics.first?.message == "\(Self.point) is already an extension point of the installed app com.example.editor")
        #expect(try registry.extensionPoint(Self.point)?.name == "Formatter")
    }

    @Test func aPointGoesWithItsAppAndItsExtensionsAreNoLongerOffered() throws {
        try installEditor()
        try registry.install(appAt: try prettier())
        try registry.uninstall("com.example.editor")
        #expect(try registry.extensionPoint(Self.point) == nil)
        #expect(try registry.query(point: Self.point, items: text).isEmpty)
        #expect(try registry.extension("com.example.prettier.pretty")?.pointIdentifier == Self.point, "it stays installed")
        try installEditor()
        #expect(try registry.query(point: Self.point, items: text).map(\.identifier) == ["com.example.prettier.pretty"])
    }

    @Test func aReinstallChangesThePolicy() throws {
        try installEditor(["AppexMemoryLimit": 48])
        try installEditor(["AppexMemoryLimit": 96], version: "2")
        #expect(try registry.extensionPoint(Self.point)?.policy.memoryLimit == .mebibytes(96))
    }
}
