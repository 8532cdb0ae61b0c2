import AppexCore
import AppexGroups
import AppexHost
import AppexItems
import AppexLocking
import AppexRegistry
import AppexSamples
import AppexSandbox
import AppexTesting
import Foundation
import Testing

/// `containerURL(forSecurityApplicationGroupIdentifier:)` under the real appexd: a container
/// for a bundle whose entitlements name the group, nil for any other, with the asker found
/// from the kernel (an extension's launch, an app's executable) and never from its word.
@Suite(.serialized, .timeLimit(.minutes(2))) final class GroupContainerTests {
    let world: FaultWorld
    static let group = "group.com.example.faults"
    static let helper = AppexBuild.products.appendingPathComponent("AppexGroupsHelper")

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
    }

    /// Installs an app `identifier` whose executable is AppexGroupsHelper, entitled to
    /// `groups`, and returns its installed executable.
    func installApp(_ identifier: String, groups: [String]) async throws -> URL {
        var app = BundleBuilder.app(identifier, name: "Grouped", in: world.test.scratch.appendingPathComponent(identifier))
        app.executable = Self.helper
        if !groups.isEmpty { app.entitlements = ["com.apple.security.application-groups": .array(groups.map(PropertyListValue.string))] }
        let installed = try Registry(home: world.test.home).install(appAt: try app.write())
        return installed.executableURL
    }

    func askForContainer(_ executable: URL, group: String) async throws -> CommandRunner.Result {
        try await CommandRunner(executable: executable, environment: world.test.environment).run(["container", group])
    }

    @Test func anAppGetsTheContainerOfItsGroupMadeOnFirstUse() async throws {
        let app = try await installApp("com.example.grouped", groups: [Self.group])
        let container = world.test.home.groupContainer(for: Self.group)
        try? FileManager.default.removeItem(at: container)
        let run = try await askForContainer(app, group: Self.group)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == container.path + "\n")
        #expect(FileManager.default.fileExists(atPath: container.path))
        let lock = container.appendingPathComponent(AppexHome.coordinationLockName)
        #expect(FileManager.default.fileExists(atPath: lock.path), "the container is a file-coordination root")
    }

    @Test func aContainingAppAskingForAGroupItIsNotEntitledToGetsNil() async throws {
        let app = try await installApp("com.example.grouped", groups: [Self.group])
        let run = try await askForContainer(app, group: "group.com.example.other")
        #expect(run.standardOutput == "nil\n")
        #expect(run.standardError.contains("com.example.grouped is not entitled to group.com.example.other"), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: world.test.home.groupContainer(for: "group.com.example.other").path))

        let unentitled = try await installApp("com.example.ungrouped", groups: [])
        let second = try await askForContainer(unentitled, group: Self.group)
        #expect(second.standardOutput == "nil\n")
        #expect(second.standardError.contains("entitlement is absent"), "\(second.standardError)")
    }

    @Test func aProgramThatIsNoInstalledAppGetsNilWhateverItClaims() async throws {
        // The same executable, run from the build folder rather than an installed bundle.
        _ = try await installApp("com.example.grouped", groups: [Self.group])
        let run = try await askForContainer(Self.helper, group: Self.group)
        #expect(run.standardOutput == "nil\n")
        #expect(run.standardError.contains("not the executable of an installed app or extension"), "\(run.standardError)")
    }

    @Test func aGroupIdentifierThatIsAPathIsRefused() async throws {
        // Installing refuses such an entitlement; appexd refuses the question before it looks.
        let app = try await installApp("com.example.grouped", groups: [Self.group])
        let run = try await askForContainer(app, group: "../escape")
        #expect(run.standardOutput == "nil\n")
        #expect(run.standardError.contains("is not an app group identifier"), "\(run.standardError)")
    }

    @Test(.enabled(if: Sandbox.KernelSupport.current.landlockABI != nil))
    func anExtensionGetsItsOwnGroupsContainerAndNoOther() async throws {
        try await world.install([FaultWorld.Plugin(fault: "attempts", groups: [Self.group])])
        let outcome = try await world.extension("attempts").outcome([textItem("group \(Self.group)\ngroup group.com.example.other")])
        let text = try #require(outcome.items?.first?.attributedContentText?.string, "\(outcome)")
        #expect(text == "allowed\nrefused: no container", "\(world.daemonLog)")
        let written = world.test.home.groupContainer(for: Self.group).appendingPathComponent("from-extension.txt")
        #expect(FileManager.default.fileExists(atPath: written.path))
    }

    @Test(.enabled(if: Sandbox.KernelSupport.current.landlockABI != nil))
    func anExtensionsCoordinatedWriteInItsSandboxWaitsForTheApps() async throws {
        try await world.install([FaultWorld.Plugin(fault: "attempts", groups: [Self.group])])
        let container = world.test.home.groupContainer(for: Self.group)
        try AppexHome.prepareContainer(at: container)
        let file = container.appendingPathComponent("from-extension.txt")
        // This process, as the app, holds a coordinated write of the file the extension
        // writes, until the extension has run for 300 ms, and notes what it saw then.
        let holding = DispatchSemaphore(value: 0)
        let seenAtRelease = Locked<(released: Bool, written: Bool)>((false, false))
        let world = self.world
        DispatchQueue.global().async {
            NSFileCoordinator().coordinate(writingItemAt: file, error: nil) { _ in
                holding.signal()
                let deadline = Date().addingTimeInterval(20)
                while world.extensionSessions().isEmpty, Date() < deadline { usleep(10_000) }
                usleep(300_000)
                seenAtRelease.withLock { $0 = (true, FileManager.default.fileExists(atPath: file.path)) }
            }
        }
        holding.wait()
        let outcome = try await world.extension("attempts").outcome([textItem("group \(Self.group)")])
        let seen = seenAtRelease.withLock { $0 }
        #expect(seen.released, "the extension answered only once the app had let go")
        #expect(!seen.written, "the extension did not write while the app did")
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed", "\(outcome) \(world.daemonLog)")
        #expect(FileManager.default.fileExists(atPath: file.path))
    }
}
