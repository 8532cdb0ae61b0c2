import AppexCore
import AppexToday
import Foundation

/// The Today view as lines of a terminal: each widget under a heading that says where what it
/// shows comes from (its snapshot and that snapshot's time, or the running widget), the
/// widget's view drawn by ``WidgetRenderer`` in its display mode, and its links numbered
/// across the whole view.
struct TodayScreen {
    /// A link on the screen: its number is its place in ``Frame/links``, plus one.
    struct Link: Equatable {
        var widget: String
        var url: String
    }

    /// One drawing of the view.
    struct Frame {
        var lines: [String]
        var links: [Link]
    }

    /// The columns every widget is drawn in.
    var width: Int
    /// Whether to use SGR styles (on a terminal) or plain text.
    var styled: Bool
    /// The widget the user has selected, marked when drawn on a terminal.
    var selected: String?

    /// The view's lines for `tiles`, with `footer` below them.
    func frame(of tiles: [TodayBoard.Tile], footer: [String] = []) -> Frame {
        guard !tiles.isEmpty else {
            return Frame(lines: ["No widgets in the Today view.", "`appex today list` lists the widgets to add; `appex today add ID` adds one."] + footer, links: [])
        }
        var lines: [String] = []
        var links: [Link] = []
        for (index, tile) in tiles.enumerated() {
            if index > 0 { lines.append("") }
            lines += self.lines(of: tile, links: &links)
        }
        return Frame(lines: lines + (footer.isEmpty ? [] : [""] + footer), links: links)
    }

    /// One widget's lines: its heading, what the view says of it, and its view. Its links are
    /// appended to `links`, numbered after those already there.
    func lines(of tile: TodayBoard.Tile, links: inout [Link]) -> [String] {
        var lines = [heading(of: tile)]
        if let status = tile.status { lines.append("  " + emphasise(status, failure: tile.hasEnded || tile.lastUpdate == .failed)) }
        if let content = tile.content {
            var urls = links.map(\.url)
            let before = urls.count
            lines += WidgetRenderer(width: width, styled: styled).lines(of: content, rows: WidgetRenderer.rows(of: content, in: tile.shownMode), links: &urls)
            links += urls[before...].map { Link(widget: tile.identifier, url: $0) }
        } else if tile.status == nil {
            lines.append(dim("  (nothing to show yet)"))
        }
        return lines
    }

    /// The widget's name, with its mode and where its content comes from on the right.
    private func heading(of tile: TodayBoard.Tile) -> String {
        let marker = selected == tile.identifier ? "▸ " : "  "
        var notes: [String] = []
        if tile.content?.largestMode == .expanded { notes.append(tile.shownMode.description) }
        if tile.isEditing { notes.append("editing") }
        switch tile.source {
        case .nothing: break
        case .snapshot(let taken, let stale): notes.append((stale ? "stale snapshot of " : "snapshot of ") + Self.time(taken))
        case .live(let updated): notes.append("live, " + Self.time(updated))
        }
        let right = notes.joined(separator: " · ")
        let printable = tile.name.escapingControlCharacters
        let room = max(1, width - marker.count - printable.count - right.count)
        let name = styled ? Style.bold(printable) : printable
        return marker + name + String(repeating: " ", count: room) + dim(right)
    }

    private func emphasise(_ text: String, failure: Bool) -> String {
        let text = text.escapingControlCharacters
        guard styled else { return failure ? "⚠ " + text : text }
        return failure ? Colour.yellow("⚠ " + text) : Style.dim(text)
    }

    private func dim(_ text: String) -> String { styled ? Style.dim(text) : text }

    /// A time of day as the view shows it: `14:05:09`.
    static func time(_ date: Date) -> String {
        date.formatted(Date.VerbatimFormatStyle(format: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
                                                timeZone: .current, calendar: Calendar(identifier: .gregorian)))
    }
}
