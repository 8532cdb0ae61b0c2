import AppexCore
import AppexRegistry
import AppexSamples
import AppexTesting
import Foundation
import Glibc
import Testing

/// `NCWidgetController.setHasContent` under the real appexd: the widget's containing app (and
/// that app's extensions) may hide the widget and show it again, running or not, and the
/// Today view neither shows nor launches a widget without content. Any other process is
/// refused with the reason, found from the kernel and not from what it says.
@Suite(.serialized, .timeLimit(.minutes(5))) final class WidgetContentTests {
    let world: FaultWorld
    /// A program that calls NCWidgetController: `widget-content WIDGET true|false`.
    static let helper = AppexBuild.products.appendingPathComponent("AppexGroupsHelper")
    static let widget = FaultWorld.identifier("widget")

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
        // The Faults app runs the helper, and contains a widget and an Action.
        try await world.install([
            FaultWorld.Plugin(fault: "widget", principalClass: "AppexFaultExtension.WidgetFault", point: ExtensionPoint.today.id),
            FaultWorld.Plugin(fault: "echo"),
        ], appExecutable: Self.helper)
        let added = try await world.appex.run(["today", "add", Self.widget])
        #expect(added.status == 0, "\(added.standardError)")
    }

    /// What `executable` printed when it set `widget`'s content to `hasContent`.
    func set(_ hasContent: Bool, for widget: String = widget, from executable: URL) async throws -> String {
        let result = try await CommandRunner(executable: executable, environment: world.test.environment)
            .run(["widget-content", widget, hasContent ? "true" : "false"])
        return result.standardOutput.trimmingCharacters(in: .newlines)
    }

    var installedApp: URL {
        get throws { try #require(try registry().app(FaultWorld.appIdentifier)).executableURL }
    }

    /// A registry of its own for each look, closed when it goes, so the leak checks see only
    /// what appexd and the extensions hold.
    func registry() throws -> Registry {
        try Registry(home: world.test.home)
    }

    /// The identifiers `appex today --json` shows.
    func shown() async throws -> [String] {
        let result = try await world.appex.run(["today", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        return (report["widgets"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
    }

    @Test func theContainingAppHidesItsWidgetWhichIsNotLaunchedUntilItHasContentAgain() async throws {
        #expect(try await shown() == [Self.widget])
        #expect(try registry().widgetSnapshot(of: Self.widget) != nil, "the view kept what the widget showed")
        let baseline = world.baseline()

        #expect(try await set(false, from: installedApp) == "kept")
        #expect(try registry().widgetHasContent(Self.widget) == false)
        #expect(try registry().widgetSnapshot(of: Self.widget) == nil, "its snapshot no longer counts")
        #expect(try await shown().isEmpty)
        #expect(world.extensionProcesses().isEmpty, "a widget without content is not launched")
        let listed = try await world.appex.run(["today", "list"])
        #expect(listed.standardOutput.contains("1. Faults (\(Self.widget)), compact, hidden: it has no content now"), "\(listed.standardOutput)")

        #expect(try await set(true, from: installedApp) == "kept")
        #expect(try await shown() == [Self.widget])
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func theSettingHoldsForAWidgetNotInTheViewAndOutlivesTheDaemon() async throws {
        let removed = try await world.appex.run(["today", "remove", Self.widget])
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(try await set(false, from: installedApp) == "kept")
        for pid in world.daemons() { kill(pid, SIGKILL) }
        #expect(await eventually { self.world.daemons().isEmpty })
        try await world.startDaemon()
        #expect(try registry().widgetHasContent(Self.widget) == false)
        let added = try await world.appex.run(["today", "add", Self.widget])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(try await shown().isEmpty, "added, but hidden until it has content")
    }

    @Test func anotherAppAProcessOfNoInstalledBundleAndAnythingButAWidgetAreRefused() async throws {
        var other = BundleBuilder.app("com.example.other", name: "Other", in: world.test.scratch.appendingPathComponent("other"))
        other.executable = Self.helper
        try await world.install(other)
        let otherApp = try #require(try registry().app("com.example.other")).executableURL

        let foreign = try await set(false, from: otherApp)
        #expect(foreign.contains("com.example.other may not say whether \(Self.widget) has content: only its containing app, \(FaultWorld.appIdentifier), and that app's extensions may"), "\(foreign)")
        let unidentified = try await set(false, from: Self.helper)
        #expect(unidentified.contains("which is not the executable of an installed app or extension"), "\(unidentified)")
        let notAWidget = try await set(false, for: FaultWorld.identifier("echo"), from: installedApp)
        #expect(notAWidget.contains("not a Today widget"), "\(notAWidget)")
        let missing = try await set(false, for: "com.example.nothing", from: installedApp)
        #expect(missing.contains("no widget com.example.nothing is installed"), "\(missing)")
        #expect(try registry().widgetHasContent(Self.widget), "nothing changed")
        #expect(try await shown() == [Self.widget])
    }
}
