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
        app.addExtension("Share", identifier: "com.example.crash.share", point: "com.apple.share-services",
                         attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"], entitlements: Self.groups)
        app.addExtension("Widget", identifier: "com.example.crash.widget", point: "com.apple.widget-extension")
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
        // Version 2 keeps the Share extension, drops the widget and adds an action.
        var upgrade = BundleBuilder.app("com.example.crash", name: "Crash", version: "2", in: test.scratch.appendingPathComponent("upgrade"))
        upgrade.entitlements = Self.groups
        upgrade.addExtension("Share", identifier: "com.example.crash.share", point: "com.apple.share-services",
                             attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"], entitlements: Self.groups)
        upgrade.addExtension("Tidy", identifier: "com.example.crash.tidy", point: "com.apple.ui-services",
                             attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"])
        let path = try upgrade.write().path
        let report = try loop(appex(["install", path])) { recovered in
            if !recovered.apps.contains(where: { $0.hasPrefix("com.example.crash 2 ") }) { try self.runToEnd(["install", path]) }
        }.run()
        Self.expectSound(report, "upgrade")
    }

    @Test func anUninstallKilledAtAnyStepLeavesTheAppWholeOrGoneWithItsContainers() throws {
        try Registry(home: test.home).install(appAt: bundle)
        try keepAsTemplate()
        let report = try loop(appex(["uninstall", "com.example.crash"])) { recovered in
            if !recovered.apps.isEmpty { try self.runToEnd(["uninstall", "com.example.crash"]) }
        }.run()
        Self.expectSound(report, "uninstall")
    }

    // MARK: Helpers

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

    private func appex(_ arguments: [String]) -> SteppedProgram {
        SteppedProgram(executable: SampleApps.products.appendingPathComponent("appex"), arguments: arguments, environment: test.environment)
    }

    private func runToEnd(_ arguments: [String]) throws {
        let outcome = try appex(arguments).run()
        guard outcome.status == .exited(0) else { throw RerunFailed(arguments: arguments, output: outcome.output) }
    }

    private func keepAsTemplate() throws {
        try FileManager.default.copyItem(at: test.home.dataDirectory, to: template)
    }

    private func restoreTemplate() throws {
        try FileManager.default.removeItem(at: test.home.dataDirectory)
        try FileManager.default.copyItem(at: template, to: test.home.dataDirectory)
    }

    static func expectSound(_ report: CrashLoop<RegistrySnapshot>.Report, _ change: String) {
        print("\(change): \(report.steps) steps, \(report.kills) kills; left as before \(report.atStart), as after \(report.atEnd); \(report.unobserved) while the database was opened or closed")
        #expect(report.steps > 10, "an \(change) changes the file system in more than a few steps")
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
