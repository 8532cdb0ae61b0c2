@testable import AppexKit
import AppexTesting
import AppexWire
import Foundation
import Testing

/// A principal class, as an extension declares one on Apple's systems: not final, with
/// stored properties set by their declarations.
class PrincipalHandler: NSObject, NSExtensionRequestHandling {
    var greeting = "hello"
    var seen: [String] = []
    func beginRequest(with context: NSExtensionContext) {}
}

/// A subclass of a principal class, which inherits its conformance and its `init()`.
final class DerivedHandler: PrincipalHandler {
    var extra = 7
}

/// A principal class with an `init()` of its own.
class InitializingHandler: NSObject, NSExtensionRequestHandling {
    let made: Date
    override init() {
        made = Date()
        super.init()
    }
    func beginRequest(with context: NSExtensionContext) {}
}

/// A principal class isolated to the main actor, as a view controller is.
@MainActor
class IsolatedHandler: NSObject, @MainActor NSExtensionRequestHandling {
    var shown = false
    func beginRequest(with context: NSExtensionContext) { shown = true }
}

/// A class that doesn't adopt `NSExtensionRequestHandling`.
final class NotAHandler: NSObject {}

/// How `NSExtensionMain` finds its principal class: from appexd's environment, or from the
/// bundle's Info.plist when the environment doesn't say, with a clear failure either way.
@MainActor @Suite struct PrincipalClassTests {
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
        let found = try PrincipalClass.load(bundlePath: folder.url.path, environment: [
            ExtensionEnvironment.bundleIdentifier: "com.example.environment",
            ExtensionEnvironment.principalClass: "AppexKitTests.PrincipalHandler",
        ])
        #expect(found.identifier == "com.example.environment")
        #expect(ObjectIdentifier(found.type) == ObjectIdentifier(PrincipalHandler.self))
    }

    @Test func anUnqualifiedNameIsLookedUpInTheExecutablesModule() throws {
        let folder = try TemporaryDirectory()
        let found = try PrincipalClass.load(bundlePath: folder.url.path, environment: [
            ExtensionEnvironment.bundleIdentifier: "com.example.environment",
            ExtensionEnvironment.principalClass: "PrincipalHandler",
            ExtensionEnvironment.executableName: "AppexKitTests",
        ])
        #expect(ObjectIdentifier(found.type) == ObjectIdentifier(PrincipalHandler.self))
    }

    @Test func withoutTheEnvironmentTheInfoPlistIsRead() throws {
        let folder = try TemporaryDirectory()
        let url = try bundle(folder, principalClass: "PrincipalHandler")
        let found = try PrincipalClass.load(bundlePath: url.path, environment: [:])
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
            _ = try PrincipalClass.load(bundlePath: folder.url.path, environment: environment)
        }
        #expect(failure?.message.contains(problem) == true, "\(failure?.message ?? "no failure")")
        #expect(failure?.recovery.isEmpty == false)
    }

    // MARK: Making instances

    private func found(_ name: String) throws -> NSObject.Type {
        try PrincipalClass.load(bundlePath: "/nonexistent", environment: [
            ExtensionEnvironment.bundleIdentifier: "com.example.environment",
            ExtensionEnvironment.principalClass: "AppexKitTests.\(name)",
        ]).type
    }

    @Test func eachInstanceIsNewAndHasItsPropertiesSetAsDeclared() throws {
        let type = try found("PrincipalHandler")
        let first = try #require(PrincipalClass.instantiate(type) as? PrincipalHandler)
        let second = try #require(PrincipalClass.instantiate(type) as? PrincipalHandler)
        #expect(first !== second)
        #expect(first.greeting == "hello" && first.seen.isEmpty)
        first.seen.append("one")
        #expect(second.seen.isEmpty)
        #expect(Swift.type(of: first) == PrincipalHandler.self)
    }

    @Test func aSubclassIsMadeWithItsOwnPropertiesAndItsSuperclasssConformance() throws {
        let made = try #require(PrincipalClass.instantiate(try found("DerivedHandler")) as? DerivedHandler)
        #expect(made.extra == 7 && made.greeting == "hello")
    }

    @Test func anInitOfTheClasssOwnRuns() throws {
        let before = Date()
        let made = try #require(PrincipalClass.instantiate(try found("InitializingHandler")) as? InitializingHandler)
        #expect(made.made >= before)
    }

    @Test func aConformanceIsolatedToTheMainActorIsFoundOnIt() throws {
        let made = PrincipalClass.instantiate(try found("IsolatedHandler"))
        #expect((made as? IsolatedHandler)?.shown == false)
    }
}
