@testable import AppexKit
import AppexTesting
import AppexWire
import Foundation
import Testing

/// A principal class, as an extension declares one.
final class PrincipalHandler: NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {}
}

/// A class that doesn't adopt `NSExtensionRequestHandling`.
final class NotAHandler {}

/// How `NSExtensionMain` finds its principal class: from appexd's environment, or from the
/// bundle's Info.plist when the environment doesn't say, with a clear failure either way.
@Suite struct PrincipalClassTests {
    private func bundle(_ folder: borrowing TemporaryDirectory, principalClass: String?) throws -> URL {
        var manifest: [String: Any] = ["NSExtensionPointIdentifier": "com.apple.ui-services"]
        if let principalClass { manifest["NSExtensionPrincipalClass"] = principalClass }
        let info: [String: Any] = ["CFBundleIdentifier": "com.example.plist", "CFBundleExecutable": "AppexKitTests", "NSExtension": manifest]
        let data = try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
        try data.write(to: folder.url.appendingPathComponent("Info.plist"))
        return folder.url
    }

    @Test func theEnvironmentNamesTheClassAndThePlistIsNotRead() throws {
        // The folder has no Info.plist: reading it would fail.
        let folder = try TemporaryDirectory()
        let found = try PrincipalClass.load(bundle: folder.url, environment: [
            ExtensionEnvironment.bundleIdentifier: "com.example.environment",
            ExtensionEnvironment.principalClass: "AppexKitTests.PrincipalHandler",
        ])
        #expect(found.identifier == "com.example.environment")
        #expect(ObjectIdentifier(found.type) == ObjectIdentifier(PrincipalHandler.self))
    }

    @Test func anUnqualifiedNameIsLookedUpInTheExecutablesModule() throws {
        let folder = try TemporaryDirectory()
        let found = try PrincipalClass.load(bundle: folder.url, environment: [
            ExtensionEnvironment.bundleIdentifier: "com.example.environment",
            ExtensionEnvironment.principalClass: "PrincipalHandler",
            ExtensionEnvironment.executableName: "AppexKitTests",
        ])
        #expect(ObjectIdentifier(found.type) == ObjectIdentifier(PrincipalHandler.self))
    }

    @Test func withoutTheEnvironmentTheInfoPlistIsRead() throws {
        let folder = try TemporaryDirectory()
        let url = try bundle(folder, principalClass: "PrincipalHandler")
        let found = try PrincipalClass.load(bundle: url, environment: [:])
        #expect(found.identifier == "com.example.plist")
        #expect(ObjectIdentifier(found.type) == ObjectIdentifier(PrincipalHandler.self))
    }

    @Test(arguments: [
        ([ExtensionEnvironment.bundleIdentifier: "com.example.environment"], "has no NSExtension → NSExtensionPrincipalClass"),
        ([ExtensionEnvironment.bundleIdentifier: "com.example.environment", ExtensionEnvironment.principalClass: "AppexKitTests.Missing"],
         "the principal class AppexKitTests.Missing named in"),
        ([ExtensionEnvironment.bundleIdentifier: "com.example.environment", ExtensionEnvironment.principalClass: "AppexKitTests.NotAHandler"],
         "does not adopt NSExtensionRequestHandling"),
        ([:], "Info.plist could not be read"),
    ])
    func aClassThatCantServeFailsAndSaysWhy(environment: [String: String], problem: String) throws {
        let folder = try TemporaryDirectory()
        let failure = #expect(throws: PrincipalClass.Failure.self) {
            _ = try PrincipalClass.load(bundle: folder.url, environment: environment)
        }
        #expect(failure?.message.contains(problem) == true, "\(failure?.message ?? "no failure")")
        #expect(failure?.recovery.isEmpty == false)
    }
}
