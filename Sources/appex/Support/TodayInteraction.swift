import AppexHost
import AppexLocking
import AppexToday
import Foundation

/// The Today view on the user's terminal: draws the board whenever it changes, and turns keys
/// into what the view does: select a widget, expand or collapse it, follow a link (after the
/// user confirms the app that opens it), edit, refresh, quit. With a schedule, every widget is
/// asked for an update at each tick, and the registry is watched for widgets added, removed or
/// moved from elsewhere.
struct TodayInteraction {
    /// How often the registry is read for changes to the view, while watching.
    static let registryInterval = Duration.seconds(1)

    let board: TodayBoard
    let terminal: Terminal
    let confirmations: LinkConfirmations
    /// How often every widget is asked for an update; nil: only when the user asks (`r`).
    let schedule: Duration?
    var screen: TodayScreen
    /// What the view last said of something the user did.
    private var message: String?
    private var drawn: [String] = []
    private var links: [TodayScreen.Link] = []
    /// What work the view doesn't wait for (an update, a link) said when it ended.
    private let answers = Answers()

    init(board: TodayBoard, terminal: Terminal, confirmations: LinkConfirmations, schedule: Duration?, screen: TodayScreen) {
        self.board = board
        self.terminal = terminal
        self.confirmations = confirmations
        self.schedule = schedule
        self.screen = screen
    }

    /// Runs the view until the user quits.
    mutating func run() async {
        terminal.enterRaw()
        defer {
            terminal.restore()
            terminal.keepDrawing()
        }
        let starting = Task { [board] in await board.startAll() }
        var nextUpdate = schedule.map { ContinuousClock.now + $0 }
        var nextReload = ContinuousClock.now + Self.registryInterval
        while true {
            if let said = answers.next() { message = said }
            redraw()
            if let due = nextUpdate, ContinuousClock.now >= due, let schedule {
                nextUpdate = ContinuousClock.now + schedule
                Task { [board] in await board.updateAll() }
            }
            if schedule != nil, ContinuousClock.now >= nextReload {
                nextReload = ContinuousClock.now + Self.registryInterval
                Task { [board] in try? await board.reload() }
            }
            guard terminal.hasInput else {
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            guard let key = terminal.readKey(), await handle(key) else { break }
        }
        confirmations.close()
        message = "Closing the widgets…"
        redraw()
        await board.dismissAll()
        await starting.value
    }

    /// What the key does; false to quit.
    private mutating func handle(_ key: Key) async -> Bool {
        if let asked = confirmations.pending {
            switch key {
            case .character("y"), .character("Y"):
                confirmations.answer(true)
                message = "Opening \(asked.url.absoluteString) in \(asked.appName)…"
            case .control("c"):
                confirmations.answer(false)
                return false
            case .character("n"), .character("N"), .escape, .enter:
                confirmations.answer(false)
            default:
                break
            }
            return true
        }
        let tiles = board.tiles
        switch key {
        case .character("q"), .escape, .control("c"):
            return false
        case .down, .tab, .character("j"):
            select(tiles, by: 1)
        case .up, .backTab, .character("k"):
            select(tiles, by: -1)
        case .enter, .character(" "):
            if let selected = screen.selected { message = board.toggleMode(selected) }
        case .character("e"):
            if let selected = screen.selected { message = board.toggleEditing(selected) }
        case .character("r"):
            message = "Updating…"
            Task { [board, answers] in
                await board.updateAll()
                answers.say("Updated.")
            }
        case .character(let typed) where typed.wholeNumberValue != nil:
            follow(typed.wholeNumberValue!)
        default:
            break
        }
        return true
    }

    private mutating func select(_ tiles: [TodayBoard.Tile], by step: Int) {
        guard !tiles.isEmpty else { return }
        let current = tiles.firstIndex { $0.identifier == screen.selected } ?? (step > 0 ? -1 : 0)
        screen.selected = tiles[(current + step + tiles.count) % tiles.count].identifier
    }

    /// Follows link `number` of the screen; the user confirms, and the answer shows when it comes.
    private mutating func follow(_ number: Int) {
        guard links.indices.contains(number - 1) else {
            message = links.isEmpty ? "No widget shows a link." : "There is no link [\(number)]; the links are [1] to [\(links.count)]."
            return
        }
        let link = links[number - 1]
        message = "Asking to open \(link.url)…"
        Task { [board, answers] in
            let (opened, reason) = await board.followLink(link.url, of: link.widget)
            answers.say(opened ? "Opened \(link.url)." : "\(link.url) was not opened: \(reason)")
        }
    }

    /// Draws the view, with the keys or the question being asked, if either changed.
    private mutating func redraw() {
        var footer: [String] = []
        if let asked = confirmations.pending {
            footer.append(Style.bold("\(asked.extensionName) asks to open \(asked.url.absoluteString) in \(asked.appName). Open it? y/n"))
        } else {
            if let message { footer.append(message) }
            footer.append(Style.dim("↑↓ select · Enter expand/collapse · 1–9 open a link · e edit · r update · q quit"))
        }
        // The first widget is selected before the frame is drawn, so that no frame shows the
        // widgets with none selected.
        if screen.selected == nil { screen.selected = board.tiles.first?.identifier }
        let frame = screen.frame(of: board.tiles, footer: footer)
        links = frame.links
        guard frame.lines != drawn else { return }
        drawn = frame.lines
        terminal.draw(frame.lines)
    }
}

/// What the Today view's background work said, for the view to show next.
private final class Answers: Sendable {
    private let said = Locked<[String]>([])

    func say(_ text: String) {
        said.withLock { $0.append(text) }
    }

    /// The oldest thing said and not yet shown.
    func next() -> String? {
        said.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
