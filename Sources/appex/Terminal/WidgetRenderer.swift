import AppexCore
import AppexToday

/// Draws a widget's view description as lines of a terminal: the Today view's part of what
/// Apple's system does when it draws a widget's views.
///
/// One row of the terminal stands for 22 points, so compact's 110 points are 5 rows and
/// expanded's most, 616, are 28; one column stands for 8 points. Links are numbered in
/// reading order, `[1]`, `[2]`, for a person to follow by number, across every widget the
/// view draws. Symbols are single characters. The widget's text is drawn with its control
/// characters written out as escapes, so a widget can't drive the terminal it is drawn on.
struct WidgetRenderer {
    /// Points per row.
    static let pointsPerRow = 22.0
    /// Points per column.
    static let pointsPerColumn = 8.0

    /// The columns to draw in.
    var width: Int
    /// Whether to style the text with SGR sequences (on a terminal) or not (in a pipe).
    var styled: Bool

    /// The rows `content` takes in `mode`: its height in points, in whole rows.
    static func rows(of content: WidgetContent, in mode: NCWidgetDisplayMode) -> Int {
        Int((content.height(in: mode) / pointsPerRow).rounded(.up))
    }

    /// `content`'s view drawn in `rows` rows at most, with its margins; the last row says how
    /// many more there were if it doesn't fit. The URLs of the links drawn are appended to
    /// `links`, and numbered after those already there.
    func lines(of content: WidgetContent, rows: Int, links: inout [String]) -> [String] {
        let left = Int((content.margins.left / Self.pointsPerColumn).rounded())
        let right = Int((content.margins.right / Self.pointsPerColumn).rounded())
        let inner = WidgetRenderer(width: max(8, width - left - right), styled: styled)
        var drawn = inner.draw(content.view, links: &links).map { String(repeating: " ", count: left) + $0 }
        if drawn.count > rows {
            let hidden = drawn.count - rows + 1
            drawn = Array(drawn.prefix(rows - 1)) + [String(repeating: " ", count: left) + dim("… \(hidden) more row\(hidden == 1 ? "" : "s") (clipped)")]
        }
        return drawn
    }

    /// The view's lines at this width; `links` collects the URLs of the links drawn so far.
    func draw(_ view: WidgetView, links: inout [String]) -> [String] {
        switch view {
        case .text(let text, let style, let color):
            return wrap(text).map { paint($0, style: style, color: color) }
        case .stack(.vertical, let spacing, let children):
            var lines: [String] = []
            for (index, child) in children.enumerated() {
                if index > 0 { lines += Array(repeating: "", count: spacing) }
                lines += draw(child, links: &links)
            }
            return lines
        case .stack(.horizontal, let spacing, let children):
            return drawRow(children, spacing: spacing, links: &links)
        case .spacer:
            return []
        case .image(let symbol, _):
            return [Self.glyph(symbol)]
        case .progress(let value, let label):
            let fraction = min(max(value.isFinite ? value : 0, 0), 1)
            let prefix = label.map { "\($0.escapingControlCharacters) " } ?? ""
            let percent = " \(Int((fraction * 100).rounded()))%"
            let bar = max(4, width - prefix.count - percent.count - 2)
            let filled = Int((Double(bar) * fraction).rounded())
            return [prefix + "▕" + String(repeating: "█", count: filled) + String(repeating: "░", count: bar - filled) + "▏" + percent]
        case .link(let url, let content):
            links.append(url)
            let marker = "[\(links.count)] "
            let inner = WidgetRenderer(width: max(4, width - marker.count), styled: styled)
            let drawn = inner.draw(content, links: &links)
            return drawn.enumerated().map { index, line in (index == 0 ? marker : String(repeating: " ", count: marker.count)) + underline(line) }
        case .divider:
            return [dim(String(repeating: "─", count: width))]
        }
    }

    /// Views side by side, `spacing` columns apart: each at its natural width, the spacers
    /// sharing what is left, and the last views cut if they don't fit.
    private func drawRow(_ children: [WidgetView], spacing: Int, links: inout [String]) -> [String] {
        let measuring = WidgetRenderer(width: width, styled: false)
        var measureLinks = links
        let natural = children.map { child -> Int in
            if case .spacer = child { return 0 }
            return measuring.draw(child, links: &measureLinks).map(\.count).max() ?? 0
        }
        let spacers = children.filter { if case .spacer = $0 { true } else { false } }.count
        let leftover = max(0, width - natural.reduce(0, +) - spacing * max(0, children.count - 1))
        var columns: [[String]] = []
        var widths: [Int] = []
        var used = 0
        var spacersSeen = 0
        for (index, child) in children.enumerated() {
            let gap = index == 0 ? 0 : spacing
            if case .spacer = child {
                // The first spacers take what doesn't divide evenly.
                let share = leftover / spacers + (spacersSeen < leftover % spacers ? 1 : 0)
                spacersSeen += 1
                columns.append([])
                widths.append(gap + share)
                used += gap + share
                continue
            }
            let room = max(0, width - used - gap)
            guard room > 0 else {
                // What doesn't fit isn't drawn, but its links keep their numbers.
                links += children[index...].flatMap(\.links)
                break
            }
            let drawn = WidgetRenderer(width: room, styled: styled).draw(child, links: &links)
            let columnWidth = min(room, natural[index])
            let padding = String(repeating: " ", count: gap)
            columns.append(drawn.map { padding + truncate($0, to: columnWidth) })
            widths.append(gap + columnWidth)
            used += gap + columnWidth
        }
        let height = columns.map(\.count).max() ?? 0
        return (0..<height).map { row in
            zip(columns, widths).map { column, columnWidth in
                let cell = row < column.count ? column[row] : ""
                return cell + String(repeating: " ", count: max(0, columnWidth - Self.visibleCount(cell)))
            }.joined().replacing(/\s+$/, with: "")
        }
    }

    // MARK: Text

    /// `text` in lines of at most `width` characters, broken at spaces where it can be.
    private func wrap(_ text: String) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let paragraph = String(paragraph).escapingControlCharacters
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                var word = Substring(word)
                while word.count > width {
                    if !line.isEmpty { lines.append(line); line = "" }
                    lines.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }

    private func paint(_ text: String, style: TextStyle, color: WidgetColor) -> String {
        guard styled, !text.isEmpty else { return text }
        let colored = switch color {
        case .primary: text
        case .secondary: "\u{1B}[2m\(text)\u{1B}[0m"
        case .accent: "\u{1B}[34m\(text)\u{1B}[0m"
        case .green: "\u{1B}[32m\(text)\u{1B}[0m"
        case .orange: "\u{1B}[33m\(text)\u{1B}[0m"
        case .red: "\u{1B}[31m\(text)\u{1B}[0m"
        }
        return switch style {
        case .title, .headline, .monospacedDigits: Style.bold(colored)
        case .caption: Style.dim(colored)
        case .body: colored
        }
    }

    private func underline(_ text: String) -> String { styled && !text.isEmpty ? "\u{1B}[4m\(text)\u{1B}[0m" : text }
    private func dim(_ text: String) -> String { styled ? Style.dim(text) : text }
    private func truncate(_ text: String, to width: Int) -> String {
        Self.visibleCount(text) <= width ? text : Style.truncate(text, to: max(0, width - 1)) + "…"
    }

    /// The characters of `text` a terminal shows: without its escape sequences.
    static func visibleCount(_ text: String) -> Int {
        text.replacing(/\u{1B}\[[0-9;]*[A-Za-z]/, with: "").count
    }

    /// The character that draws `symbol`.
    static func glyph(_ symbol: WidgetSymbol) -> String {
        switch symbol {
        case .note: "✎"
        case .clock: "◷"
        case .gauge: "◔"
        case .photo: "▣"
        case .folder: "▤"
        case .star: "★"
        case .sun: "☼"
        case .cloud: "☁"
        case .bolt: "ϟ"
        case .link: "↗"
        case .checkmark: "✓"
        case .warning: "⚠"
        }
    }
}
