import AppexCore
import AppexRegistry
import AppexSamples
import AppexTesting
import AppexToday
import Foundation
import Testing

/// `appex today`, the Today view in a terminal, with widgets that misbehave: a failed update
/// keeps the snapshot and marks it stale, a widget that sends what can't be drawn is shown
/// with why, and the others still show; and a widget's edit mode, driven with keys.
@Suite(.serialized) final class TodayViewTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
    }

    /// Installs the widget faults and adds them to the Today view, in this order.
    func show(_ faults: String...) async throws {
        try await world.install(faults.map {
            FaultWorld.Plugin(fault: $0, principalClass: "AppexFaultExtension.WidgetFault", point: ExtensionPoint.today.id)
        })
        for fault in faults {
            let added = try await world.appex.run(["today", "add", FaultWorld.identifier(fault)])
            #expect(added.status == 0, "\(added.standardError)")
        }
    }

    /// `appex today --json`'s widgets, by identifier.
    func today() async throws -> [String: [String: Any]] {
        let result = try await world.appex.run(["today", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardOutput)")
        let widgets = report["widgets"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: widgets.map { ($0["identifier"] as? String ?? "", $0) })
    }

    @Test(arguments: [
        ("widgetFails", ["update failed: the widget said .failed"]),
        // Whether the crash comes before the widget says it listens, or just after, is the machine's timing.
        ("crashAtLaunch", ["can't be started: ", "crashed: killed by SIGABRT"]),
    ])
    func anUpdateThatFailsKeepsTheSnapshotAndMarksItStale(fault: String, statuses: [String]) async throws {
        try await show(fault)
        let identifier = FaultWorld.identifier(fault)
        let registry = try Registry(home: world.test.home)
        let yesterday = Date(timeIntervalSinceNow: -86_400)
        try registry.saveWidgetSnapshot(try JSONEncoder().encode(WidgetContent(view: .text("Yesterday's news"))), of: identifier, at: yesterday)
        let baseline = world.baseline()

        let shown = try #require(try await today()[identifier])
        #expect(shown["source"] as? String == "snapshot" && shown["stale"] as? Bool == true, "\(shown)")
        #expect(statuses.contains { (shown["status"] as? String)?.contains($0) == true }, "\(shown)")
        #expect((shown["lines"] as? [String])?.contains { $0.contains("Yesterday's news") } == true, "\(shown)")
        let kept = try #require(try registry.widgetSnapshot(of: identifier))
        #expect(kept.isStale && abs(kept.takenAt.timeIntervalSince(yesterday)) < 1, "the snapshot stays, marked")
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func aWidgetThatSendsWhatCantBeDrawnIsShownWithWhyAndTheOthersStillShow() async throws {
        try await show("widget", "widgetMalformedView", "widgetHugeView", "widgetTall")
        let baseline = world.baseline()
        let widgets = try await today()
        let good = try #require(widgets[FaultWorld.identifier("widget")])
        #expect(good["source"] as? String == "live" && good["update"] as? String == "newData", "\(good)")
        #expect((good["lines"] as? [String])?.contains { $0.contains("Update 1") } == true, "\(good)")
        #expect(good["links"] as? [String] == ["faultapp://item/1", "nowhere://item"])
        let last = try #require(widgets[FaultWorld.identifier("widgetTall")])
        #expect(last["update"] as? String == "newData" && last["links"] as? [String] == ["faultapp://item/1", "nowhere://item"], "\(last)")
        #expect((last["lines"] as? [String])?.contains { $0.contains("[3] Open item 1") } == true, "links are numbered across the view: \(last)")
        for (fault, reason) in [("widgetMalformedView", "not JSON"), ("widgetHugeView", "over the 262144 a widget's message may be")] {
            let broken = try #require(widgets[FaultWorld.identifier(fault)])
            #expect((broken["status"] as? String)?.contains(reason) == true, "\(fault): \(broken)")
            #expect(broken["update"] as? String == "failed", "\(fault): \(broken)")
            #expect(broken["source"] as? String == "none" && (broken["links"] as? [String])?.isEmpty == true, "nothing of it is drawn: \(broken)")
            #expect(try Registry(home: world.test.home).widgetSnapshot(of: FaultWorld.identifier(fault)) == nil, "nothing broken is kept")
        }
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func aPersonExpandsAWidgetAndUsesItsEditMode() async throws {
        try await show("widget")
        let terminal = try PseudoTerminal(AppexBuild.products.appendingPathComponent("appex"), ["today"], environment: world.test.environment)
        try await terminal.waitForScreen(containing: "Update 1")
        terminal.send(PseudoTerminal.Keys.enter)
        let expanded = try await terminal.waitForScreen(containing: "Mode expanded up to 616")
        #expect(expanded.contains("Half ▕") && expanded.contains("50%"), "expanded shows the progress bar: \(expanded)")
        terminal.send("e")
        let editing = try await terminal.waitForScreen(containing: "Editing began")
        #expect(editing.contains("expanded · editing"), "\(editing)")
        terminal.send("e")
        try await terminal.waitForScreen(containing: "Editing ended")
        terminal.send("9")
        try await terminal.waitForScreen(containing: "There is no link [9]; the links are [1] to [2].")
        terminal.send("q")
        #expect(try await terminal.waitForExit() == 0)
    }
}
