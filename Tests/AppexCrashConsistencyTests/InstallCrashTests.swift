import AppexCore
import AppexRegistry
import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Testing

/// `appex install` and `appex uninstall`, killed before each change they make to the file
/// system: the registry passes SQLite's integrity check and says the app is installed as it
/// was before, or as the command would have left it, with every file of its bundle; the next
/// command finishes what was left, and leaves nothing behind.
@Suite(.serialized, .enabled(if: CrashTests.areWanted, CrashTests.whyApart)) final class InstallCrashTests {
    static let groups: [String: PropertyListValue] = ["com.apple.security.application-groups": .array(["group.com.example.crash"])]

    let test: TestHome
    let bundle: URL
    let template: URL

    init() throws {
        test = try TestHome()
        var app = BundleBuilder.app("com.example.crash", name: "Crash", in: test.scratch.appendingPathComponent("bundle"))
        app.entitlements = Self.groups
        for (name, point) in Self.versionOneExtensions { Self.add(name, point, to: &app) }
        bundle = try app.write()
        template = test.scratch.appendingPathComponent("template")
    }

    @Test func anInstallKilledAtAnyStepLeavesTheAppInstalledWholeOrNotAtAll() throws {
        _ = try Registry(home: test.home)
        try keepAsTemplate()
        let report = try loop(appex(["install", bundle.path])) { _ in try self.runToEnd(["install", self.bundle.path]) }.run()
        Self.expectSound(report, "install")
    }

    @Test func anUpgradeKilledAtAnyStepLeavesOneWholeVersionOfTheApp() throws {
        try Registry(home: test.home).install(appAt: bundle)
        try keepAsTemplate()
        // Version 2 keeps the Share, Today and Keyboard extensions, drops Photo Editing and
        // Notification Service, and adds an Action and a Document Provider.
        var upgrade = BundleBuilder.app("com.example.crash", name: "Crash", version: "2", in: test.scratch.appendingPathComponent("upgrade"))
        upgrade.entitlements = Self.groups
        for (name, point) in Self.versionTwoExtensions { Self.add(name, point, to: &upgrade) }
        let path = try upgrade.write().path
        let report = try loop(appex(["install", path])) { recovered in
            if !recovered.apps.contains(where: { $0.hasPrefix("com.example.crash 2 ") }) { try self.runToEnd(["install", path]) }
        }.run()
        Self.expectSound(report, "upgrade")
    }

    @Test func anUninstallKilledAtAnyStepLeavesTheAppWholeOrGoneWithItsContainers() throws {
        try Registry(home: test.home).install(appAt: bundle)
        try fillContainers()
        try keepAsTemplate()
        let report = try loop(appex(["uninstall", "com.example.crash"])) { recovered in
            if !recovered.apps.isEmpty { try self.runToEnd(["uninstall", "com.example.crash"]) }
        }.run()
        Self.expectSound(report, "uninstall")
    }

    // MARK: Helpers

    /// An app as apps ship: five extensions, each in the app's group. The loops kill each
    /// command at more than 200 steps.
    static let versionOneExtensions = [
        ("Share", "com.apple.share-services"), ("Widget", "com.apple.widget-extension"), ("Keyboard", "com.apple.keyboard-service"),
        ("Editor", "com.apple.photo-editing"), ("Notifications", "com.apple.usernotifications.service"),
    ]
    static let versionTwoExtensions = [
        ("Share", "com.apple.share-services"), ("Widget", "com.apple.widget-extension"), ("Keyboard", "com.apple.keyboard-service"),
        ("Tidy", "com.apple.ui-services"), ("Documents", "com.apple.fileprovider-ui"),
    ]

    private static func add(_ name: String, _ point: String, to app: inout BundleBuilder) {
        let rule: [String: PropertyListValue] = ["NSExtensionActivationRule": "TRUEPREDICATE"]
        let needsRule = point == "com.apple.share-services" || point == "com.apple.ui-services"
        app.addExtension(name, identifier: "com.example.crash.\(name.lowercased())", point: point,
                         attributes: needsRule ? rule : [:], entitlements: groups)
    }

    private func loop(_ program: SteppedProgram, rerun: @escaping (RegistrySnapshot) throws -> Void) -> CrashLoop<RegistrySnapshot> {
        let home = test.home
        return CrashLoop(
            program: program, reset: { try self.restoreTemplate() },
            observe: { try RegistrySnapshot.read(home) }, recover: { try RegistrySnapshot.recover(home) },
            rerun: rerun,
            leftovers: {
                // The next install sweeps what a killed one copied; an uninstall's committed removals are finished on open.
                let used = Set(try Registry(home: home).apps().map { $0.url.deletingLastPathComponent().lastPathComponent })
                let folders = (try? FileManager.default.contentsOfDirectory(atPath: home.applicationsDirectory.path)) ?? []
                return folders.filter { !used.contains($0) }.map { "Applications/\($0) is used by no installed app" }
            }
        )
    }

    /// Leaves in the app's, each extension's and the group's container what using them
    /// leaves: documents, a database, preferences, a cache and a temporary file, each in its folder.
    private func fillContainers() throws {
        let bundles = ["com.example.crash"] + Self.versionOneExtensions.map { "com.example.crash.\($0.0.lowercased())" }
        let containers = bundles.map { test.home.container(for: $0) } + [test.home.groupContainer(for: "group.com.example.crash")]
        for container in containers {
            for file in ["Documents/draft.txt", "Documents/Inbox/shared.jpg", "Library/Application Support/library.sqlite",
                         "Library/Preferences/settings.plist", "Library/Caches/thumbnail.png", "tmp/upload.part"] {
                let url = container.appendingPathComponent(file)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.utf8).write(to: url)
            }
        }
    }

    private func appex(_ arguments: [String]) -> SteppedProgram {
        SteppedProgram(executable: AppexBuild.products.appendingPathComponent("appex"), arguments: arguments, environment: test.environment)
    }

    private func runToEnd(_ arguments: [String]) throws {
        let outcome = try appex(arguments).run()
        guard outcome.status == .exited(0) else { throw RerunFailed(arguments: arguments, output: outcome.output) }
    }

    private func keepAsTemplate() throws {
        try FileManager.default.copyItem(at: test.home.dataDirectory, to: template)
    }

    private func restoreTemplate() throws {
        try ConfinedFolder.removeTree(atPath: test.home.dataDirectory.path)
        try FileManager.default.copyItem(at: template, to: test.home.dataDirectory)
    }

    static func expectSound(_ report: CrashLoop<RegistrySnapshot>.Report, _ change: String) {
        print("\(change): \(report.steps) steps, \(report.kills) kills; left as before \(report.atStart), as after \(report.atEnd); \(report.unobserved) while the database was opened or closed")
        #expect(report.kills >= 200, "the loop killed the \(change) at least 200 times")
        #expect(report.kills * 10 >= report.steps * 9, "it was killed before (nearly) every step: a run may make fewer steps than another")
        #expect(report.atStart > 0 && report.atEnd > 0 && report.atStart + report.atEnd == report.kills,
                "each kill left the state before or after, some one and some the other")
        #expect(report.failures.isEmpty, "\(report.failures.prefix(5))")
    }
}

/// A command run again after a kill failed.
struct RerunFailed: Error, CustomStringConvertible {
    var arguments: [String]
    var output: String
    var description: String { "appex \(arguments.joined(separator: " ")) failed when run again: \(output)" }
}
