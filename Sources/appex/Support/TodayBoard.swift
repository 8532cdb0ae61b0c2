import AppexCore
import AppexHost
import AppexLocking
import AppexRegistry
import AppexToday
import Foundation

/// The Today view's widgets, as `appex today` shows them: each widget's snapshot at once, then
/// its running widget, updated, with the registry kept in step.
///
/// The snapshot rules are Apple's: an update that finds `.newData` replaces the snapshot,
/// `.noData` keeps it, and `.failed` keeps it and marks it stale. Until a widget answers its
/// first update, its snapshot is what is shown; after that, what the widget sends (after a
/// change of mode, say) is shown as it comes.
final class TodayBoard: Sendable {
    /// Where what a tile shows comes from.
    enum Source: Sendable, Equatable {
        /// Nothing yet: no snapshot, and the widget hasn't sent anything.
        case nothing
        /// The registry's snapshot, taken then; stale if an update failed since.
        case snapshot(taken: Date, stale: Bool)
        /// What the running widget sent, at that time.
        case live(Date)
    }

    /// One widget in the view.
    struct Tile: Sendable {
        var identifier: String
        var name: String
        var mode: NCWidgetDisplayMode
        var content: WidgetContent?
        var source: Source = .nothing
        /// What the view says of the widget besides its content: starting, why it failed.
        var status: String?
        /// The answer to the last update, once there is one.
        var lastUpdate: NCUpdateResult?
        var isEditing = false
        /// Whether the widget is starting or updating.
        var isBusy = false
        var session: WidgetSession?
        /// Whether the widget's request has ended.
        var hasEnded = false

        /// The mode it can be drawn in: expanded only if the widget supports it.
        var shownMode: NCWidgetDisplayMode {
            mode == .expanded && content?.largestMode == .expanded ? .expanded : .compact
        }
    }

    private struct State {
        var tiles: [Tile] = []
        /// Counts changes, so a view redraws only when something changed.
        var revision = 0
        /// Whether the view is closing: a widget that starts now is dismissed at once.
        var isClosing = false
    }

    let registry: Registry
    let home: AppexHome
    /// The width of every widget, in points.
    let width: Double
    /// How the user confirms a URL a widget asks to open.
    let confirm: NSExtension.URLOpenConfirmation
    private let state = Locked(State())

    init(registry: Registry, home: AppexHome = .current, width: Double, confirm: @escaping NSExtension.URLOpenConfirmation) {
        self.registry = registry
        self.home = home
        self.width = width
        self.confirm = confirm
    }

    var tiles: [Tile] { state.withLock { $0.tiles } }
    var revision: Int { state.withLock { $0.revision } }

    // MARK: The registry's Today view

    /// The widgets the registry lists, enabled, in the user's order, each with its snapshot.
    func loadTiles() throws(RegistryError) -> [Tile] {
        var tiles: [Tile] = []
        for widget in try registry.todayWidgets() {
            // A widget without content (NCWidgetController.setHasContent) is hidden and not launched.
            guard widget.hasContent, let installed = try registry.extension(widget.identifier), installed.isEnabled else { continue }
            var tile = Tile(identifier: installed.identifier, name: installed.displayName, mode: NCWidgetDisplayMode(name: widget.displayMode) ?? .compact)
            if let snapshot = try registry.widgetSnapshot(of: installed.identifier) {
                if let content = try? JSONDecoder().decode(WidgetContent.self, from: snapshot.content), content.problem == nil {
                    tile.content = content
                    tile.source = .snapshot(taken: snapshot.takenAt, stale: snapshot.isStale)
                } else {
                    tile.status = "its snapshot can't be read; it is replaced at the next update"
                }
            }
            tiles.append(tile)
        }
        return tiles
    }

    /// Puts `tiles` in the view, replacing what it showed; for the first load.
    func show(_ tiles: [Tile]) {
        state.withLock { state in
            state.tiles = tiles
            state.revision += 1
        }
    }

    /// Shows the registry's widgets: those new to the view are added with their snapshots
    /// and started; those gone are dismissed.
    func reload() async throws(RegistryError) {
        let listed = try loadTiles()
        let (added, removed) = state.withLock { state -> ([Tile], [Tile]) in
            let known = Dictionary(state.tiles.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
            let listedIdentifiers = Set(listed.map(\.identifier))
            let removed = state.tiles.filter { !listedIdentifiers.contains($0.identifier) }
            let added = listed.filter { known[$0.identifier] == nil }
            let reordered = listed.map { known[$0.identifier] ?? $0 }
            guard !added.isEmpty || !removed.isEmpty || reordered.map(\.identifier) != state.tiles.map(\.identifier) else { return ([], []) }
            state.tiles = reordered
            state.revision += 1
            return (added, removed)
        }
        for tile in removed { _ = await tile.session?.dismiss() }
        await withTaskGroup(of: Void.self) { group in
            for tile in added { group.addTask { await self.start(tile.identifier) } }
        }
    }

    // MARK: Running widgets

    /// Starts every widget and asks each for its first update, all at once.
    func startAll() async {
        await withTaskGroup(of: Void.self) { group in
            for tile in tiles where tile.session == nil && !tile.hasEnded {
                group.addTask { await self.start(tile.identifier) }
            }
        }
    }

    /// Launches the widget `identifier`, presents it in its mode, and asks it for an update.
    func start(_ identifier: String) async {
        guard let tile = tile(identifier) else { return }
        change(identifier) {
            $0.status = "starting…"
            $0.isBusy = true
        }
        let session: WidgetSession
        do {
            let widget = try await NSExtension.extension(withIdentifier: identifier, home: home)
            widget.urlOpenConfirmationBlock = confirm
            session = try await WidgetSession.begin(widget, presentation: WidgetPresentation(mode: tile.mode, width: width)) { [weak self] event in
                self?.received(event, from: identifier)
            }
        } catch {
            // A widget that can't start can't update: its snapshot stays, marked stale.
            try? registry.markWidgetSnapshotStale(identifier)
            return change(identifier) {
                $0.hasEnded = true
                $0.isBusy = false
                $0.status = "can't be started: \(ErrorText.describe(error))"
                if case .snapshot(let taken, _) = $0.source { $0.source = .snapshot(taken: taken, stale: true) }
            }
        }
        let kept = state.withLock { state -> Bool in
            guard !state.isClosing, let index = state.tiles.firstIndex(where: { $0.identifier == identifier }) else { return false }
            state.tiles[index].session = session
            state.revision += 1
            return true
        }
        guard kept else {
            _ = await session.dismiss()
            return
        }
        await update(identifier)
    }

    /// Asks the running widget `identifier` for an update, and applies the snapshot rules.
    func update(_ identifier: String) async {
        guard let session = tile(identifier)?.session, !session.hasEnded else {
            var failed = false
            change(identifier) { tile in
                tile.isBusy = false
                // Ended before it was asked (for what it sent as it loaded, say, perhaps before
                // its session was kept here): its first update failed, for that reason.
                guard tile.lastUpdate == nil, let failure = tile.session?.failure else { return }
                tile.lastUpdate = .failed
                tile.status = "update failed: \(failure)"
                if case .snapshot(let taken, _) = tile.source { tile.source = .snapshot(taken: taken, stale: true) }
                failed = true
            }
            if failed { try? registry.markWidgetSnapshotStale(identifier) }
            return
        }
        change(identifier) {
            $0.status = "updating…"
            $0.isBusy = true
        }
        let update = await session.update()
        let now = Date()
        var saving: WidgetContent?
        change(identifier) { tile in
            tile.lastUpdate = update.result
            tile.status = nil
            tile.isBusy = false
            switch update.result {
            case .newData:
                tile.content = update.content ?? tile.content
                tile.source = .live(now)
                saving = update.content
            case .noData:
                // The snapshot stays; a widget with none yet has its content taken as the first.
                if case .snapshot = tile.source { break }
                tile.content = update.content ?? tile.content
                tile.source = tile.content == nil ? .nothing : .live(now)
                saving = update.content
            case .failed:
                tile.status = "update failed: \(update.failure ?? "the widget said .failed")"
                if case .snapshot(let taken, _) = tile.source { tile.source = .snapshot(taken: taken, stale: true) }
            }
        }
        if let saving, let data = try? JSONEncoder().encode(saving) {
            try? registry.saveWidgetSnapshot(data, of: identifier, at: now)
        } else if update.result == .failed {
            try? registry.markWidgetSnapshotStale(identifier)
        }
    }

    /// Updates every running widget, all at once.
    func updateAll() async {
        await withTaskGroup(of: Void.self) { group in
            for tile in tiles where tile.session != nil { group.addTask { await self.update(tile.identifier) } }
        }
    }

    /// Expands the widget `identifier` if it is compact, or collapses it; the choice is kept.
    /// Returns why not, for a widget that shows only compact.
    func toggleMode(_ identifier: String) -> String? {
        guard let tile = tile(identifier) else { return nil }
        guard tile.content?.largestMode == .expanded else { return "\(tile.name) has only a compact mode" }
        let mode: NCWidgetDisplayMode = tile.shownMode == .expanded ? .compact : .expanded
        change(identifier) { $0.mode = mode }
        tile.session?.setDisplayMode(mode)
        try? registry.setTodayDisplayMode(mode.description, for: identifier)
        return nil
    }

    /// Begins or ends the widget's edit mode; returns why not, for a widget without one.
    func toggleEditing(_ identifier: String) -> String? {
        guard let tile = tile(identifier) else { return nil }
        guard tile.content?.allowsEditing == true, let session = tile.session, !tile.hasEnded else {
            return "\(tile.name) has no edit mode"
        }
        change(identifier) { $0.isEditing.toggle() }
        session.setEditing(!tile.isEditing)
        return nil
    }

    /// Asks the widget `identifier` to open `url`, one of its links; the user confirms first.
    func followLink(_ url: String, of identifier: String) async -> (opened: Bool, reason: String) {
        guard let session = tile(identifier)?.session, !session.hasEnded else {
            return (false, "\(tile(identifier)?.name ?? identifier) isn't running, so it can't open its links")
        }
        return await session.followLink(url)
    }

    /// Dismisses every running widget, and waits for each to end; a widget still starting is
    /// dismissed as soon as it has.
    func dismissAll() async {
        let sessions = state.withLock { state in
            state.isClosing = true
            return state.tiles.compactMap(\.session)
        }
        await withTaskGroup(of: Void.self) { group in
            for session in sessions { group.addTask { _ = await session.dismiss() } }
        }
    }

    // MARK: What widgets send

    private func received(_ event: WidgetSession.Event, from identifier: String) {
        switch event {
        case .content(let content):
            change(identifier) { tile in
                // Before the first update's answer, a snapshot stays on the screen.
                if tile.lastUpdate == nil, case .snapshot = tile.source { return }
                tile.content = content
                tile.source = .live(Date())
            }
        case .linkOpened:
            break
        case .ended(let outcome):
            change(identifier) { tile in
                tile.hasEnded = true
                tile.isEditing = false
                if let failure = tile.session?.failure {
                    tile.status = "ended: \(failure)"
                } else if case .interrupted(let interruption) = outcome {
                    tile.status = "ended: \(interruption.message)"
                }
            }
        }
    }

    private func tile(_ identifier: String) -> Tile? {
        state.withLock { $0.tiles.first { $0.identifier == identifier } }
    }

    private func change(_ identifier: String, _ body: (inout Tile) -> Void) {
        state.withLock { state in
            guard let index = state.tiles.firstIndex(where: { $0.identifier == identifier }) else { return }
            body(&state.tiles[index])
            state.revision += 1
        }
    }
}

extension TodayBoard {
    /// Follows link `number` of the view as `screen` draws it now, without asking: the
    /// caller's choice (a command line's, the demo's) is the confirmation.
    func followLink(numbered number: Int, as screen: TodayScreen, confirmations: LinkConfirmations) async -> TodayReport.Link {
        let links = screen.frame(of: tiles).links
        guard links.indices.contains(number - 1) else {
            let reason = links.isEmpty ? "no widget shows a link" : "the links are [1] to [\(links.count)]"
            return TodayReport.Link(number: number, url: "", app: nil, opened: false, reason: reason)
        }
        let chosen = links[number - 1]
        confirmations.approve(chosen.url)
        let (opened, reason) = await followLink(chosen.url, of: chosen.widget)
        let app = confirmations.last.flatMap { $0.url.absoluteString == chosen.url ? $0.appName : nil }
        return TodayReport.Link(number: number, url: chosen.url, app: app, opened: opened, reason: reason)
    }
}
