import AppexCore
import AppexHost
import AppexRegistry
import AppexToday
import ArgumentParser
import Foundation

/// `appex today`: the Today view in a terminal, and the commands that choose its widgets.
struct TodayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "Show the Today view's widgets, or choose which ones it shows.",
        subcommands: [TodayShowCommand.self, TodayListCommand.self, TodayAddCommand.self, TodayRemoveCommand.self, TodayMoveCommand.self],
        defaultSubcommand: TodayShowCommand.self
    )
}

/// `appex today [show]`: draws each widget's snapshot at once, launches the widgets, asks
/// each for an update, and draws what they send.
struct TodayShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the Today view: the widgets the user added, in their order and modes.",
        discussion: """
            Each widget's last snapshot is drawn at once, with its time, then the widget is launched and asked for \
            an update: new data replaces the snapshot, no data keeps it, and a failed update keeps it marked stale. \
            On a terminal the view stays: ↑/↓ select a widget, Enter expands or collapses it, a number opens that \
            link (after you confirm the app that opens it), e enters or leaves the widget's edit mode, r updates, \
            q quits. Without a terminal, or with --json, the view is printed once the widgets have answered, and \
            --open N follows link N, your choice on the command line counting as the confirmation. --watch \
            updates every widget each --interval seconds and follows the registry's changes to the view; without \
            a terminal it prints the view each time it changes, until interrupted. Exit status: 0 shown, 1 the link \
            was not opened, 2 the registry can't be read.
            """
    )

    @Flag(help: "Keep the view up: update the widgets on a schedule, and show widgets added or removed elsewhere.")
    var watch = false

    @Option(help: "Seconds between the scheduled updates, with --watch.")
    var interval: Double = 30

    @Option(help: "Columns to draw each widget in; one column is 8 points.")
    var width = 48

    @Option(help: "Follow the link numbered N once the widgets have updated, and print whether it opened.")
    var open: Int?

    @Flag(help: "Print JSON; never asks.")
    var json = false

    func validate() throws {
        guard interval >= 1 else { throw ValidationError("--interval must be at least 1 second") }
        guard (20...200).contains(width) else { throw ValidationError("--width must be 20 to 200 columns") }
        if let open, open < 1 { throw ValidationError("--open takes a link's number, from 1") }
    }

    func run() async throws {
        let registry = try RegistryAccess.open()
        let terminal = json ? nil : Terminal.standard()
        let columns = min(width, (terminal?.columns ?? width + 4) - 4)
        let confirmations = LinkConfirmations(canAsk: terminal != nil && open == nil)
        let board = TodayBoard(registry: registry, width: Double(columns) * WidgetRenderer.pointsPerColumn) { await confirmations.ask($0) }
        board.show(try RegistryAccess.run { () throws(RegistryError) in try board.loadTiles() })
        let screen = TodayScreen(width: columns, styled: terminal != nil && !json && Colour.isWanted(on: STDOUT_FILENO))
        if let terminal, open == nil {
            var interaction = TodayInteraction(board: board, terminal: terminal, confirmations: confirmations,
                                               schedule: watch ? .seconds(interval) : nil, screen: screen)
            return await interaction.run()
        }
        await board.startAll()
        var link: TodayReport.Link?
        if let open { link = await board.followLink(numbered: open, as: screen, confirmations: confirmations) }
        if watch {
            await printChanges(of: board, screen: screen)
        } else {
            try show(board, screen: screen, link: link)
        }
        await board.dismissAll()
        if let link, !link.opened {
            let which = link.url.isEmpty ? "there is no link [\(link.number)]" : "link [\(link.number)], \(link.url), was not opened"
            throw CommandFailure(status: CommandFailure.no, json ? "" : "\(which): \(link.reason)")
        }
    }

    /// Prints the view once, as lines or JSON, with what following a link did.
    private func show(_ board: TodayBoard, screen: TodayScreen, link: TodayReport.Link?) throws {
        if json { return try Output.json(TodayReport(board.tiles, screen: screen, link: link)) }
        for line in screen.frame(of: board.tiles).lines { print(line) }
        if let link, link.opened { print("Opened \(link.url)" + (link.app.map { " in \($0)." } ?? ".")) }
    }

    /// Prints the view each time it changes and no widget is busy, and keeps the schedule,
    /// until SIGINT or SIGTERM.
    private func printChanges(of board: TodayBoard, screen: TodayScreen) async {
        let stop = InterruptSignals()
        var printed: [String]?
        var nextUpdate = ContinuousClock.now + .seconds(interval)
        var nextReload = ContinuousClock.now + TodayInteraction.registryInterval
        while !stop.received {
            let tiles = board.tiles
            let frame = screen.frame(of: tiles)
            if !tiles.contains(where: \.isBusy), frame.lines != printed {
                if json {
                    try? Output.jsonLine(TodayReport(tiles, screen: screen, link: nil))
                } else {
                    FileHandle.standardOutput.write(Data(((printed == nil ? "" : "\n") + frame.lines.joined(separator: "\n") + "\n").utf8))
                }
                printed = frame.lines
            }
            if ContinuousClock.now >= nextUpdate {
                nextUpdate = ContinuousClock.now + .seconds(interval)
                Task { [board] in await board.updateAll() }
            }
            if ContinuousClock.now >= nextReload {
                nextReload = ContinuousClock.now + TodayInteraction.registryInterval
                try? await board.reload()
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// What `appex today --json` prints.
struct TodayReport: Encodable {
    /// One widget as the view shows it.
    struct Widget: Encodable {
        var identifier: String
        var name: String
        /// compact or expanded: the mode it is drawn in.
        var mode: String
        /// none, snapshot or live.
        var source: String
        /// When the snapshot was taken, or the widget last sent content.
        var time: Date?
        var stale: Bool
        /// newData, noData or failed: the answer to the last update.
        var update: String?
        var status: String?
        var editing: Bool
        /// The widget as drawn, in plain text, its links numbered across the whole view.
        var lines: [String]
        /// Its links' URLs, in the order they are numbered.
        var links: [String]
        var content: WidgetContent?
    }

    /// What following a link did.
    struct Link: Encodable {
        var number: Int
        var url: String
        /// The app that opens it, if appexd found one and asked.
        var app: String?
        var opened: Bool
        var reason: String
    }

    var widgets: [Widget]
    var link: Link?

    init(_ tiles: [TodayBoard.Tile], screen: TodayScreen, link: Link?) {
        var plain = screen
        plain.styled = false
        var links: [TodayScreen.Link] = []
        widgets = tiles.map { tile in
            let before = links.count
            let lines = plain.lines(of: tile, links: &links)
            let (source, time, stale): (String, Date?, Bool) = switch tile.source {
            case .nothing: ("none", nil, false)
            case .snapshot(let taken, let stale): ("snapshot", taken, stale)
            case .live(let updated): ("live", updated, false)
            }
            return Widget(identifier: tile.identifier, name: tile.name, mode: tile.shownMode.description, source: source, time: time,
                          stale: stale, update: tile.lastUpdate?.description, status: tile.status, editing: tile.isEditing,
                          lines: lines, links: links[before...].map(\.url), content: tile.content)
        }
        self.link = link
    }
}
