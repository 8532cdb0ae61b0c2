import AppexCore
import AppexSamples
import AppexTesting
import Foundation
import Testing

/// `appex new`: the package it writes, and what it refuses. Support/check-templates builds,
/// installs, runs and tests each template in CI; these check what can be checked without a build.
@Suite final class NewCommandTests {
    let test: TestHome
    let appex: CommandRunner

    init() throws {
        test = try TestHome()
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
        try FileManager.default.createDirectory(at: test.scratch, withIntermediateDirectories: true)
    }

    func new(_ arguments: String...) async throws -> CommandRunner.Result {
        try await appex.run(["new"] + arguments + ["--output", test.scratch.path, "--appex", "/opt/appex"])
    }

    @Test(arguments: [("action", "UpperAction", "ActionRequestHandler", "com.apple.ui-services"),
                      ("share", "UpperShare", "ShareViewController", "com.apple.share-services"),
                      ("today", "UpperWidget", "TodayViewController", "com.apple.widget-extension")])
    func eachTemplateAssemblesIntoAValidAppWithXcodesSettingsExpanded(point: String, target: String, principal: String, pointID: String) async throws {
        let created = try await new(point, "Upper", "--group", "group.com.example.upper")
        #expect(created.status == 0, "\(created.standardError)")
        let package = test.scratch.appendingPathComponent("Upper")
        let manifest = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".package(path: "/opt/appex")"#))
        #expect(manifest.contains(#".product(name: "AppexKit", package: "appex")"#))
        let principalSource = try String(contentsOf: package.appendingPathComponent("Sources/\(target)/\(principal).swift"), encoding: .utf8)
        #expect(principalSource.contains("UserDefaults(suiteName: \"group.com.example.upper\")"))
        #expect(FileManager.default.isExecutableFile(atPath: package.appendingPathComponent("install.sh").path))

        // The executables as `swift build` would leave them, for `appex bundle` to copy.
        let products = test.scratch.appendingPathComponent("products")
        try FileManager.default.createDirectory(at: products, withIntermediateDirectories: true)
        for name in ["Upper", target] { try FileManager.default.copyItem(atPath: "/bin/true", toPath: products.appendingPathComponent(name).path) }
        let bundled = try await appex.run(["bundle", package.appendingPathComponent("Bundle/Upper.app").path, "--products", products.path,
                                           "--set", "MARKETING_VERSION=1.0", "--set", "CURRENT_PROJECT_VERSION=1", "--output", test.scratch.path])
        #expect(bundled.status == 0, "\(bundled.standardOutput)\(bundled.standardError)")
        let info = try PropertyListValue(decoding: Data(contentsOf: test.scratch.appendingPathComponent("Upper.app/PlugIns/\(target).appex/Info.plist")))
        #expect(info["CFBundleExecutable"]?.stringValue == target)
        #expect(info["CFBundlePackageType"]?.stringValue == "XPC!")
        #expect(info["CFBundleIdentifier"]?.stringValue == "com.example.upper.\(point)")
        #expect(info["NSExtension"]?["NSExtensionPrincipalClass"]?.stringValue == "\(target).\(principal)")
        #expect(info["NSExtension"]?["NSExtensionPointIdentifier"]?.stringValue == pointID)
        let installed = try await appex.run(["install", test.scratch.appendingPathComponent("Upper.app").path])
        #expect(installed.status == 0, "\(installed.standardError)")
        #expect(try await appex.run(["info", "com.example.upper"]).standardOutput.contains("App groups: group.com.example.upper"))
    }

    @Test func aURLDependencyNamesThePackageByItsRepository() async throws {
        let created = try await appex.run(["new", "action", "Upper", "--output", test.scratch.path, "--appex", "https://example.com/tools/appex.git"])
        #expect(created.status == 0, "\(created.standardError)")
        let manifest = try String(contentsOf: test.scratch.appendingPathComponent("Upper/Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".package(url: "https://example.com/tools/appex.git", branch: "main")"#))
        #expect(manifest.contains(#".product(name: "AppexExtensionTesting", package: "appex")"#))
    }

    @Test func whatItRefusesItSaysWhy() async throws {
        let keyboard = try await new("keyboard", "Keys")
        #expect(keyboard.status == 2)
        #expect(keyboard.standardError.contains("no template for keyboard: appex new makes action, share, today"), "\(keyboard.standardError)")
        #expect(try await new("action", "9lives").standardError.contains("use letters and digits, starting with a letter"))
        #expect(try await new("action", "Upper", "--group", "com.example.upper").standardError.contains("is not an app group"))
        #expect(try await new("action", "Upper", "--app", "not an id").standardError.contains("is not a bundle identifier"))
        #expect(try await new("action", "Upper").status == 0)
        let again = try await new("action", "Upper")
        #expect(again.status == 2 && again.standardError.contains("already exists"), "nothing is overwritten: \(again.standardError)")
    }
}
