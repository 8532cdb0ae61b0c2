import AppexBundles
import AppexCore
import AppexSamples
import AppexTesting
import Foundation
import Testing

/// Validation lists every problem at once, each with its file, key path and code.
@Suite final class BundleValidationTests {
    let folder: URL
    private let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
        folder = temporary.url
    }

    func validate(_ app: BundleBuilder, distribution: Bool = false) throws -> BundleInspection {
        BundleValidator(types: .system, distribution: distribution).validate(appAt: try app.write())
    }

    func codes(_ inspection: BundleInspection, severity: Diagnostic.Severity = .error) -> [String] {
        inspection.diagnostics.filter { $0.severity == severity }.map(\.code)
    }

    func shareApp() -> BundleBuilder {
        var app = BundleBuilder.app("com.example.tool", in: folder)
        app.addExtension(
            "Share", identifier: "com.example.tool.share", point: "com.apple.share-services",
            attributes: ["NSExtensionActivationRule": ["NSExtensionActivationSupportsText": true]]
        )
        return app
    }

    @Test func anExtensionExecutableThatLinksAppOnlyCodeIsReported() async throws {
        let linking = AppexBuild.products.appendingPathComponent("AppexApplicationHelper")
        var app = shareApp()
        app.plugIns[0].executable = linking
        app.executable = linking // the app may; only the extension is reported
        let inspection = try validate(app)
        let found = inspection.diagnostics.filter { $0.code == "links-app-only-code" }
        try #require(found.count == 1, "\(inspection.diagnostics)")
        #expect(found[0].severity == .warning)
        #expect(found[0].file == "Tool.app/PlugIns/Share.appex/Share")
        #expect(found[0].message.contains("links AppexApplication, which is not safe for use in app extensions"))
        #expect(codes(try validate(app, distribution: true)) == ["links-app-only-code"])

        // The same program stripped still says so; an extension made with AppexKit alone does not.
        let stripped = folder.appendingPathComponent("stripped")
        let strip = try await CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/strip"), environment: [:])
            .run(["-o", stripped.path, linking.path])
        try #require(strip.status == 0, "\(strip.standardError)")
        app.plugIns[0].executable = stripped
        #expect(try validate(app).diagnostics.map(\.code) == ["links-app-only-code"])
        app.plugIns[0].executable = AppexBuild.products.appendingPathComponent("AppexFaultExtension")
        #expect(try validate(app).diagnostics == [])
    }

    @Test func aWellFormedAppIsValid() throws {
        let inspection = try validate(shareApp())
        #expect(inspection.diagnostics == [])
        #expect(inspection.isValid)
        #expect(inspection.bundle?.extensions.map(\.info.identifier) == ["com.example.tool.share"])
    }

    @Test func everyProblemIsListedAtOnce() throws {
        var app = shareApp()
        app.info["CFBundleExecutable"] = nil
        app.plugIns[0].info["CFBundleIdentifier"] = "com.other.share"
        app.addExtension("Mystery", identifier: "com.example.tool.mystery", point: "com.example.no-such-point")
        let inspection = try validate(app)
        #expect(!inspection.isValid)
        #expect(Set(codes(inspection)) == ["missing-key", "identifier-not-prefixed", "unknown-extension-point"])
        let missing = try #require(inspection.diagnostics.first { $0.code == "missing-key" })
        #expect(missing.file == "Tool.app/Info.plist")
        #expect(missing.keyPath == "CFBundleExecutable")
        #expect(missing.hint != nil)
    }

    @Test func anIllTypedKeyNamesItsKeyPath() throws {
        var app = shareApp()
        app.plugIns[0].info["NSExtension"] = ["NSExtensionPointIdentifier": 42, "NSExtensionPrincipalClass": "Share.Handler"]
        let problem = try #require(try validate(app).diagnostics.first { $0.code == "wrong-type" })
        #expect(problem.keyPath == "NSExtension.NSExtensionPointIdentifier")
        #expect(problem.message.contains("integer"))
        #expect(problem.file == "Tool.app/PlugIns/Share.appex/Info.plist")
    }

    @Test func anExtensionIdentifierMustExtendTheAppsWithADot() throws {
        for identifier in ["com.example.toolshare", "com.example.tool", "com.example.tool."] {
            var app = shareApp()
            app.plugIns[0].info["CFBundleIdentifier"] = .string(identifier)
            let inspection = try validate(app)
            #expect(codes(inspection).contains { $0 == "identifier-not-prefixed" || $0 == "invalid-identifier" }, "\(identifier)")
        }
    }

    @Test func anUnknownPointIsAnErrorAndAnUnhostedApplePointAWarning() throws {
        var app = shareApp()
        app.addExtension("Blocker", identifier: "com.example.tool.blocker", point: "com.apple.Safari.content-blocker")
        app.addExtension("Typo", identifier: "com.example.tool.typo", point: "com.apple.share-service")
        let inspection = try validate(app)
        #expect(codes(inspection) == ["unknown-extension-point"])
        #expect(codes(inspection, severity: .warning) == ["point-not-hosted"])
    }

    @Test func aMissingExecutableIsAnError() throws {
        var app = shareApp()
        app.includeExecutables = false
        let inspection = try validate(app)
        #expect(Set(codes(inspection)) == ["app-without-executable", "missing-executable"])
    }

    @Test func anExecutableThatIsADirectoryIsAnError() throws {
        let url = try shareApp().write()
        try FileManager.default.removeItem(at: url.appendingPathComponent("tool"))
        try FileManager.default.createDirectory(at: url.appendingPathComponent("tool"), withIntermediateDirectories: false)
        #expect(codes(BundleValidator(types: .system).validate(appAt: url)) == ["executable-is-directory"])
    }

    @Test func anExecutableWithoutTheExecuteBitOrNotAProgramIsAnError() throws {
        let url = try shareApp().write()
        let executable = url.appendingPathComponent("tool")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: executable.path)
        #expect(codes(BundleValidator(types: .system).validate(appAt: url)) == ["not-executable"])
        try Data("just text".utf8).write(to: executable)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executable.path)
        #expect(codes(BundleValidator(types: .system).validate(appAt: url)) == ["not-a-program"])
    }

    @Test func shareAndActionExtensionsNeedAnActivationRule() throws {
        var app = BundleBuilder.app("com.example.tool", in: folder)
        app.addExtension("Share", identifier: "com.example.tool.share", point: "com.apple.share-services")
        app.addExtension("Action", identifier: "com.example.tool.action", point: "com.apple.ui-services")
        app.addExtension("Today", identifier: "com.example.tool.today", point: "com.apple.widget-extension")
        let problems = try validate(app).diagnostics.filter { $0.code == "missing-activation-rule" }
        #expect(problems.map(\.file) == ["Tool.app/PlugIns/Action.appex/Info.plist", "Tool.app/PlugIns/Share.appex/Info.plist"])
        #expect(problems.allSatisfy { $0.keyPath == "NSExtension.NSExtensionAttributes.NSExtensionActivationRule" })
    }

    @Test func duplicateExtensionIdentifiersAreAnError() throws {
        var app = shareApp()
        app.addExtension(
            "Share2", identifier: "com.example.tool.SHARE", point: "com.apple.share-services",
            attributes: ["NSExtensionActivationRule": ["NSExtensionActivationSupportsText": true]]
        )
        #expect(codes(try validate(app)) == ["duplicate-identifier"])
    }

    @Test func anExtensionOnItsOwnIsRejected() throws {
        let url = try shareApp().write()
        let inspection = BundleValidator(types: .system).validate(appAt: url.appendingPathComponent("PlugIns/Share.appex"))
        #expect(codes(inspection) == ["extension-outside-app"])
        #expect(inspection.bundle == nil)
    }

    @Test func anExtensionOutsidePlugInsIsRejected() throws {
        let url = try shareApp().write()
        try FileManager.default.moveItem(
            at: url.appendingPathComponent("PlugIns/Share.appex"), to: url.appendingPathComponent("Share.appex"))
        #expect(codes(BundleValidator(types: .system).validate(appAt: url)) == ["misplaced-extension"])
    }

    @Test func anExtensionMayNotNestExtensionsOrFrameworks() throws {
        let url = try shareApp().write()
        let plugIn = url.appendingPathComponent("PlugIns/Share.appex")
        try FileManager.default.createDirectory(at: plugIn.appendingPathComponent("Frameworks"), withIntermediateDirectories: true)
        #expect(codes(BundleValidator(types: .system).validate(appAt: url)) == ["frameworks-in-extension"])
    }

    @Test func sharedLibrariesBelongInFrameworks() throws {
        let url = try shareApp().write()
        let library = try Data(contentsOf: BundleBuilder.sampleExecutable)
        try FileManager.default.createDirectory(at: url.appendingPathComponent("Frameworks"), withIntermediateDirectories: true)
        try library.write(to: url.appendingPathComponent("Frameworks/libToolKit.so"))
        #expect(BundleValidator(types: .system).validate(appAt: url).isValid)
        try library.write(to: url.appendingPathComponent("PlugIns/Share.appex/libToolKit.so.1"))
        try FileManager.default.createDirectory(at: url.appendingPathComponent("SharedFrameworks"), withIntermediateDirectories: true)
        let inspection = BundleValidator(types: .system).validate(appAt: url)
        #expect(Set(codes(inspection)) == ["library-outside-frameworks", "shared-frameworks"])
        #expect(inspection.bundle?.frameworks == ["libToolKit.so"])
    }

    @Test func symbolicLinksMayNotLeaveTheBundle() throws {
        let url = try shareApp().write()
        let fileManager = FileManager.default
        try fileManager.createSymbolicLink(atPath: url.appendingPathComponent("passwd").path, withDestinationPath: "/etc/passwd")
        try fileManager.createSymbolicLink(atPath: url.appendingPathComponent("up").path, withDestinationPath: "../../..")
        try fileManager.createSymbolicLink(atPath: url.appendingPathComponent("inside").path, withDestinationPath: "PlugIns/../Info.plist")
        try fileManager.createSymbolicLink(atPath: url.appendingPathComponent("dangling").path, withDestinationPath: "nothing-here")
        let inspection = BundleValidator(types: .system).validate(appAt: url)
        let problems = inspection.diagnostics.filter { $0.severity == .error }.map { "\($0.code) \($0.file)" }
        #expect(problems.sorted() == [
            "dangling-link Tool.app/dangling", "link-escapes-bundle Tool.app/passwd", "link-escapes-bundle Tool.app/up",
        ])
    }

    @Test func anExecutableNameWithAPathIsRejected() throws {
        var app = shareApp()
        app.includeExecutables = false
        app.plugIns[0].info["CFBundleExecutable"] = "../../../bin/sh"
        let inspection = try validate(app)
        #expect(codes(inspection).contains("invalid-executable-name"))
    }

    @Test func unexpandedBuildSettingsAreReported() throws {
        var app = shareApp()
        app.plugIns[0].info["CFBundleIdentifier"] = "$(PRODUCT_BUNDLE_IDENTIFIER)"
        let problem = try #require(try validate(app).diagnostics.first { $0.code == "unexpanded-build-setting" })
        #expect(problem.message.contains("$(PRODUCT_BUNDLE_IDENTIFIER)"))
        #expect(problem.hint?.contains("--set") == true)
    }

    @Test func aStoryboardIsAcceptedWithAnExplanation() throws {
        var app = shareApp()
        app.plugIns[0].info["NSExtension"] = [
            "NSExtensionPointIdentifier": "com.apple.widget-extension", "NSExtensionMainStoryboard": "MainInterface",
        ]
        let inspection = try validate(app)
        #expect(inspection.isValid)
        let warning = try #require(inspection.diagnostics.first { $0.code == "storyboard-unused" })
        #expect(warning.message.contains("not used on Linux"))
        #expect(warning.hint?.contains("NSExtensionPrincipalClass") == true)
    }

    @Test func aContainingAppMayNotCarryAnNSExtensionDictionary() throws {
        var app = shareApp()
        app.info["NSExtension"] = ["NSExtensionPointIdentifier": "com.apple.share-services"]
        #expect(codes(try validate(app)) == ["extension-key-in-app"])
    }

    @Test func aRuleNestedThousandsDeepIsRejectedWithoutCrashing() throws {
        var app = shareApp()
        let deep = String(repeating: "(", count: 100_000) + "TRUEPREDICATE" + String(repeating: ")", count: 100_000)
        app.plugIns[0].info["NSExtension"] = [
            "NSExtensionPointIdentifier": "com.apple.share-services", "NSExtensionPrincipalClass": "Share.Handler",
            "NSExtensionAttributes": ["NSExtensionActivationRule": .string(deep)],
        ]
        let problem = try #require(try validate(app).diagnostics.first { $0.code == "invalid-activation-rule" })
        #expect(problem.message.contains("nest") || problem.message.contains("long"), "\(problem)")
    }

    @Test func aRuleMegabytesLongIsRejectedWithoutCrashing() throws {
        var app = shareApp()
        let long = Array(repeating: "ANY $x UTI-CONFORMS-TO \"public.image\"", count: 60_000).joined(separator: " OR ")
        #expect(long.utf8.count > 2_000_000)
        app.plugIns[0].info["NSExtension"] = [
            "NSExtensionPointIdentifier": "com.apple.share-services", "NSExtensionPrincipalClass": "Share.Handler",
            "NSExtensionAttributes": ["NSExtensionActivationRule": .string(long)],
        ]
        let inspection = try validate(app)
        #expect(inspection.diagnostics.contains { $0.code == "invalid-activation-rule" || $0.code == "file-too-large" })
        #expect(!inspection.isValid)
    }

    @Test func anAppMayNotRedefineASystemTypeOrExportAPublicOne() throws {
        var app = shareApp()
        app.info["UTExportedTypeDeclarations"] = [
            ["UTTypeIdentifier": "public.jpeg", "UTTypeConformsTo": ["public.text"]],
            ["UTTypeIdentifier": "public.my-format", "UTTypeConformsTo": ["public.data"]],
            ["UTTypeIdentifier": "com.example.tool.doc", "UTTypeConformsTo": ["public.plain-text"]],
            ["UTTypeConformsTo": ["public.data"]],
        ]
        let inspection = try validate(app)
        #expect(Set(codes(inspection)) == ["type-redefines-system-type", "type-reserved-identifier", "invalid-type-declaration"])
        let missing = try #require(inspection.diagnostics.first { $0.code == "invalid-type-declaration" })
        #expect(missing.keyPath?.hasPrefix("UTExportedTypeDeclarations[3]") == true)
    }

    @Test func rulesMayNameTheTypesTheirAppExports() throws {
        var app = BundleBuilder.app("com.example.tool", in: folder)
        app.info["UTExportedTypeDeclarations"] = [["UTTypeIdentifier": "com.example.tool.doc", "UTTypeConformsTo": ["public.data"]]]
        app.addExtension(
            "Share", identifier: "com.example.tool.share", point: "com.apple.share-services",
            attributes: ["NSExtensionActivationRule": "SUBQUERY(extensionItems, $i, SUBQUERY($i.attachments, $a, ANY $a.registeredTypeIdentifiers UTI-CONFORMS-TO \"com.example.tool.doc\").@count == 1).@count == 1"]
        )
        let inspection = try validate(app)
        #expect(inspection.diagnostics.filter { $0.code == "rule-unknown-type" } == [])
        var typo = app
        typo.info["UTExportedTypeDeclarations"] = nil
        #expect(try validate(typo).diagnostics.contains { $0.code == "rule-unknown-type" })
    }
}
