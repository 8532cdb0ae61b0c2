import AppexBundles
import AppexCore
import AppexTesting
import Foundation
import Testing

/// An app declares extension points in its Info.plist; its declarations are checked key by
/// key, and extensions are validated against them as against the system's points.
@Suite final class DeclaredPointTests {
    let folder: URL
    private let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
        folder = temporary.url
    }

    /// An editor app that declares `com.example.editor.formatter` with `declaration`.
    func editor(_ declaration: [String: PropertyListValue], point: String = "com.example.editor.formatter") -> BundleBuilder {
        var app = BundleBuilder.app("com.example.editor", name: "Editor", in: folder)
        app.info["AppexExtensionPoints"] = .dictionary([point: .dictionary(declaration)])
        return app
    }

    func inspect(_ app: BundleBuilder, points: ExtensionPointCatalog = ExtensionPoint.catalog) throws -> BundleInspection {
        BundleValidator(points: points, types: .system).validate(appAt: try app.write())
    }

    func errors(_ inspection: BundleInspection) -> [String] {
        inspection.diagnostics.filter { $0.severity == .error }.map(\.code)
    }

    @Test func aDeclarationGivesThePointItsPolicyAndItsApp() throws {
        let app = editor([
            "AppexExtensionPointName": "Formatter", "AppexMemoryLimit": 64, "AppexLaunchDeadline": .real(0.5),
            "AppexRequestDeadline": 5, "AppexRequiresActivationRule": true, "AppexMayOpenURLs": true,
            "AppexVisibility": "private", "EXPresentsUserInterface": false,
        ])
        let inspection = try inspect(app)
        #expect(inspection.diagnostics.isEmpty)
        let point = try #require(inspection.bundle?.info.declaredPoints.first)
        #expect(point.id == "com.example.editor.formatter")
        #expect(point.name == "Formatter")
        #expect(point.declaringApp == "com.example.editor")
        #expect(point.visibility == .private)
        #expect(point.support == .hosted)
        #expect(point.policy == ExtensionPointPolicy(
            memoryLimit: .mebibytes(64), launchDeadline: .milliseconds(500), requestDeadline: .seconds(5),
            mayOpenURLs: true, requiresActivationRule: true))
    }

    @Test func aDeclarationWithOnlyANameTakesTheDefaults() throws {
        let point = try #require(try inspect(editor(["AppexExtensionPointName": "Formatter"])).bundle?.info.declaredPoints.first)
        #expect(point.visibility == .public)
        #expect(point.policy == ExtensionPointPolicy(memoryLimit: .mebibytes(120)))
    }

    @Test func everyProblemOfADeclarationIsReportedWithItsKeyPath() throws {
        let inspection = try inspect(editor([
            "AppexMemoryLimit": 4096, "AppexLaunchDeadline": "fast", "AppexRequestDeadline": .real(-1),
            "AppexVisibility": "friends", "AppexMaxCPU": 3,
        ], point: "com.example.other.formatter"))
        let prefix = "AppexExtensionPoints.com.example.other.formatter"
        let found = Dictionary(inspection.diagnostics.map { ($0.keyPath ?? "", $0.code) }, uniquingKeysWith: { first, _ in first })
        #expect(found[prefix] == "point-not-prefixed")
        #expect(found[prefix + ".AppexExtensionPointName"] == "missing-key")
        #expect(found[prefix + ".AppexMemoryLimit"] == "out-of-bounds")
        #expect(found[prefix + ".AppexLaunchDeadline"] == "wrong-type")
        #expect(found[prefix + ".AppexRequestDeadline"] == "out-of-bounds")
        #expect(found[prefix + ".AppexVisibility"] == "invalid-visibility")
        #expect(found[prefix + ".AppexMaxCPU"] == "unknown-point-key")
        #expect(inspection.diagnostics.first { $0.code == "out-of-bounds" && $0.keyPath?.hasSuffix("MemoryLimit") == true }?.message
            == "is 4096 MiB, outside 8…1024 MiB")
        #expect(inspection.bundle?.info.declaredPoints.isEmpty == true)
        #expect(!inspection.isValid)
    }

    @Test func aDeclarationThatIsNotADictionaryOrSitsInAnExtensionIsAnError() throws {
        var app = BundleBuilder.app("com.example.editor", name: "Editor", in: folder)
        app.info["AppexExtensionPoints"] = .dictionary(["com.example.editor.formatter": "yes"])
        app.addExtension("Share", identifier: "com.example.editor.share", point: "com.apple.ui-services",
                         attributes: ["NSExtensionActivationRule": ["NSExtensionActivationSupportsText": true]])
        app.plugIns[0].info["AppexExtensionPoints"] = .dictionary([:])
        let inspection = try inspect(app)
        #expect(errors(inspection).sorted() == ["points-key-in-extension", "wrong-type"])
    }

    @Test func theSystemsPointsCannotBeDeclaredAgain() throws {
        var app = BundleBuilder.app("com.apple", name: "Impostor", in: folder)
        app.info["AppexExtensionPoints"] = .dictionary(["com.apple.share-services": ["AppexExtensionPointName": "Share"]])
        let inspection = try inspect(app)
        #expect(errors(inspection) == ["point-already-declared"])
        #expect(inspection.diagnostics.first?.message == "com.apple.share-services is already an extension point of the system")
    }

    @Test func theAppsOwnExtensionsMayExtendItsPointAndItsPolicyApplies() throws {
        var app = editor(["AppexExtensionPointName": "Formatter", "AppexRequiresActivationRule": true])
        app.addExtension("Tidy", identifier: "com.example.editor.tidy", point: "com.example.editor.formatter")
        let inspection = try inspect(app)
        #expect(errors(inspection) == ["missing-activation-rule"])
        #expect(inspection.diagnostics.first?.message == "is missing, but Formatter extensions must say which items they accept")
    }

    @Test func anotherAppsExtensionMayExtendAPublicPointButNotAPrivateOne() throws {
        let declaring = try #require(try inspect(editor(["AppexExtensionPointName": "Formatter"])).bundle)
        let privateDeclaring = try #require(try inspect(editor(["AppexExtensionPointName": "Formatter", "AppexVisibility": "private"])).bundle)
        var other = BundleBuilder.app("com.example.prettier", name: "Prettier", in: folder.appendingPathComponent("other"))
        other.addExtension("Pretty", identifier: "com.example.prettier.pretty", point: "com.example.editor.formatter")

        #expect(errors(try inspect(other)) == ["unknown-extension-point"])
        #expect(try inspect(other, points: ExtensionPoint.catalog.adding(declaring.info.declaredPoints)).isValid)
        let refused = try inspect(other, points: ExtensionPoint.catalog.adding(privateDeclaring.info.declaredPoints))
        #expect(errors(refused) == ["point-private"])
        #expect(refused.diagnostics.first?.message
            == "Formatter (com.example.editor.formatter) is private to com.example.editor: only its own extensions may extend it")
    }

    @Test func aReinstallsDeclarationsReplaceTheInstalledOnes() throws {
        let installed = try #require(try inspect(editor(["AppexExtensionPointName": "Formatter", "AppexVisibility": "private"])).bundle)
        var app = editor(["AppexExtensionPointName": "Formatter", "AppexRequiresActivationRule": true])
        app.addExtension("Tidy", identifier: "com.example.editor.tidy", point: "com.example.editor.formatter")
        // The installed declaration neither conflicts with the new one nor decides the policy.
        let inspection = try inspect(app, points: ExtensionPoint.catalog.adding(installed.info.declaredPoints))
        #expect(errors(inspection) == ["missing-activation-rule"])
    }
}
