import AppexRegistry
import AppexSamples
import AppexTesting
import Foundation
import Testing

/// The Today view's state in the registry: which widgets show, in what order and mode, and
/// each widget's snapshot.
@Suite final class TodayRegistryTests {
    let test: TestHome
    let registry: Registry
    static let notes = "com.example.notes.widget"
    static let monitor = "com.example.monitor.widget"

    init() async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
        try await AssembledSamples.install(into: registry)
    }

    @Test func widgetsAreAddedMovedAndRemovedInTheUsersOrder() throws {
        #expect(try registry.todayWidgets().isEmpty, "the Today view starts empty, as on Apple's systems")
        try registry.addTodayWidget(Self.notes)
        try registry.addTodayWidget("COM.EXAMPLE.MONITOR.WIDGET", at: 0)
        #expect(try registry.todayWidgets().map(\.identifier) == [Self.monitor, Self.notes])
        try registry.moveTodayWidget(Self.notes, to: 0)
        #expect(try registry.todayWidgets().map(\.identifier) == [Self.notes, Self.monitor])
        try registry.moveTodayWidget(Self.notes, to: 99)
        #expect(try registry.todayWidgets().map(\.identifier) == [Self.monitor, Self.notes])
        try registry.setTodayDisplayMode("expanded", for: Self.notes)
        #expect(try registry.todayWidgets().map(\.displayMode) == ["compact", "expanded"])
        let unknownMode = #expect(throws: RegistryError.self) { try self.registry.setTodayDisplayMode("huge", for: Self.notes) }
        #expect(unknownMode?.code == .invalidArgument && unknownMode?.message == "\"huge\" is not a display mode")
        let notShown = #expect(throws: RegistryError.self) { try self.registry.setTodayDisplayMode("compact", for: "com.example.nothing") }
        #expect(notShown?.code == .notInstalled)
        #expect(try registry.todayWidgets().map(\.displayMode) == ["compact", "expanded"], "neither changed anything")
        try registry.removeTodayWidget(Self.monitor)
        #expect(try registry.todayWidgets() == [TodayWidget(identifier: Self.notes, displayMode: "expanded")])
    }

    @Test func onlyInstalledWidgetsCanBeAddedAndEachOnce() throws {
        let share = #expect(throws: RegistryError.self) { try self.registry.addTodayWidget("com.example.notes.share") }
        #expect(share?.message == "com.example.notes.share is an extension of com.apple.share-services, not a Today widget")
        let missing = #expect(throws: RegistryError.self) { try self.registry.addTodayWidget("com.example.nothing") }
        #expect(missing?.code == .notInstalled)
        try registry.addTodayWidget(Self.notes)
        let twice = #expect(throws: RegistryError.self) { try self.registry.addTodayWidget(Self.notes) }
        #expect(twice?.message == "\(Self.notes) is already in the Today view")
        let absent = #expect(throws: RegistryError.self) { try self.registry.removeTodayWidget(Self.monitor) }
        #expect(absent?.message == "\(Self.monitor) is not in the Today view")
        let unmoved = #expect(throws: RegistryError.self) { try self.registry.moveTodayWidget(Self.monitor, to: 0) }
        #expect(unmoved?.code == .notInstalled)
    }

    @Test func aWidgetKeepsItsPlaceAcrossAnUninstallButNotItsSnapshot() async throws {
        try registry.addTodayWidget(Self.monitor)
        try registry.addTodayWidget(Self.notes)
        try registry.saveWidgetSnapshot(Data("{}".utf8), of: Self.notes)
        _ = try registry.uninstall("com.example.notes")
        #expect(try registry.todayWidgets().map(\.identifier) == [Self.monitor])
        try await AssembledSamples.install(into: registry, only: ["Notes.app"])
        #expect(try registry.todayWidgets().map(\.identifier) == [Self.monitor, Self.notes], "the choice outlives a reinstall")
        #expect(try registry.widgetSnapshot(of: Self.notes) == nil, "the snapshot went with the widget")
    }

    @Test func aSnapshotIsReplacedByNewDataAndMarkedStaleByAFailure() throws {
        #expect(try registry.widgetSnapshot(of: Self.notes) == nil)
        let first = Date(timeIntervalSince1970: 1_800_000_000)
        try registry.saveWidgetSnapshot(Data("one".utf8), of: Self.notes, at: first)
        #expect(try registry.widgetSnapshot(of: Self.notes) == WidgetSnapshotRecord(content: Data("one".utf8), takenAt: first, isStale: false))
        try registry.markWidgetSnapshotStale(Self.notes)
        #expect(try registry.widgetSnapshot(of: Self.notes)?.isStale == true)
        try registry.saveWidgetSnapshot(Data("two".utf8), of: Self.notes, at: first + 60)
        #expect(try registry.widgetSnapshot(of: Self.notes) == WidgetSnapshotRecord(content: Data("two".utf8), takenAt: first + 60, isStale: false))
        let share = #expect(throws: RegistryError.self) { try self.registry.saveWidgetSnapshot(Data(), of: "com.example.notes.share") }
        #expect(share?.code == .conflict)
    }

    @Test func aWidgetWithoutContentIsMarkedInTheViewLosesItsSnapshotAndKeepsTheSettingAcrossAReinstall() async throws {
        #expect(try registry.widgetHasContent(Self.notes), "a widget that never said has content")
        try registry.addTodayWidget(Self.notes)
        try registry.saveWidgetSnapshot(Data("{}".utf8), of: Self.notes)
        try registry.setWidgetHasContent(false, for: Self.notes)
        #expect(try registry.todayWidgets() == [TodayWidget(identifier: Self.notes, displayMode: "compact", hasContent: false)])
        #expect(try registry.widgetSnapshot(of: Self.notes) == nil, "a snapshot of content it no longer has")

        // A widget not in the view keeps its setting too, and so does a reinstalled one.
        try registry.setWidgetHasContent(false, for: Self.monitor)
        _ = try registry.uninstall("com.example.notes")
        try await AssembledSamples.install(into: registry, only: ["Notes.app"])
        #expect(try registry.widgetHasContent(Self.notes) == false)
        #expect(try registry.widgetHasContent(Self.monitor) == false)
        try registry.setWidgetHasContent(true, for: Self.notes)
        #expect(try registry.todayWidgets().map(\.hasContent) == [true])

        let share = #expect(throws: RegistryError.self) { try self.registry.setWidgetHasContent(false, for: "com.example.notes.share") }
        #expect(share?.code == .conflict)
        let missing = #expect(throws: RegistryError.self) { try self.registry.setWidgetHasContent(false, for: "com.example.nothing") }
        #expect(missing?.code == .notInstalled)
    }
}
