import AppexCore
import AppexShare

/// Share's compose sheet as the terminal draws it, from the sheet the extension sent and
/// what the user is doing: the text being typed, the row in focus, a status line.
///
/// ```
/// Add to Notes
/// ─────────────────────────────
/// Lunch at noon▏
///
/// 488 characters left
/// ─────────────────────────────
///   Folder                Inbox ›
/// ▸ [ Post ]   [ Cancel ]
/// Attached: https://example.com
/// type to edit · Tab/↑↓ move · Enter choose · Ctrl-S post · Esc cancel
/// ```
///
/// Everything the extension chose (the title, the text, the rows, the options) is drawn with
/// its control characters written out as escapes: a sheet can't move the cursor, clear the
/// screen or retitle the window of the terminal it is drawn on.
struct ComposeSheetView {
    /// The row the keys act on.
    enum Focus: Hashable {
        case text, item(Int), post, cancel
    }

    var sheet: ComposeSheet
    /// The extension's display name, the title when the sheet gives none.
    var name: String
    /// The text as the user has typed it, which may be ahead of the sheet's.
    var text: String
    var focus = Focus.text
    /// The highlighted option of a pushed list.
    var optionSelection = 0
    /// What is attached besides the text, one short label each.
    var attachments: [String]
    /// One line about what is going on: waiting, refused, failed.
    var status: String?

    init(sheet: ComposeSheet, name: String, attachments: [String]) {
        self.sheet = sheet
        self.name = name
        self.text = sheet.contentText
        self.attachments = attachments
    }

    /// The rows Tab moves through, in order.
    var focusOrder: [Focus] {
        [.text] + sheet.configurationItems.indices.map(Focus.item) + [.post, .cancel]
    }

    /// Moves the focus `step` rows on, wrapping.
    mutating func moveFocus(_ step: Int) {
        let order = focusOrder
        let current = order.firstIndex(of: focus) ?? 0
        focus = order[(current + step + order.count) % order.count]
    }

    /// Takes a new sheet, keeping the focus where it can be.
    mutating func update(_ new: ComposeSheet) {
        if new.optionList != sheet.optionList { optionSelection = new.optionList?.selected ?? 0 }
        sheet = new
        if !focusOrder.contains(focus) { focus = .text }
    }

    var lines: [String] {
        if let list = sheet.optionList { return lines(of: list) }
        var lines = [Style.bold((sheet.title ?? name).escapingControlCharacters), rule]
        var textLines = text.isEmpty
            ? [Style.dim((sheet.placeholder ?? "").escapingControlCharacters)]
            : text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).escapingControlCharacters }
        if focus == .text { textLines[textLines.count - 1] += Style.inverse(" ") }
        lines += textLines
        if let remaining = sheet.charactersRemaining {
            lines.append(remaining < 0 ? Style.bold("\(-remaining) characters over the limit") : Style.dim("\(remaining) characters left"))
        }
        if !sheet.configurationItems.isEmpty {
            lines.append(rule)
            for (index, item) in sheet.configurationItems.enumerated() {
                let value = item.valuePending ? Style.dim("(pending…)") : item.value.escapingControlCharacters
                let row = "\(item.title.escapingControlCharacters)  \(value)\(item.isTappable ? " ›" : "")"
                lines.append(focus == .item(index) ? "▸ " + Style.inverse(row) : "  " + row)
            }
        }
        lines.append(rule)
        let post = sheet.isContentValid ? "[ Post ]" : Style.dim("[ Post ]")
        let buttons = [(Focus.post, post), (.cancel, "[ Cancel ]")].map { focus == $0.0 ? Style.inverse($0.1) : $0.1 }
        lines.append((focus == .post || focus == .cancel ? "▸ " : "  ") + buttons.joined(separator: "   "))
        if !attachments.isEmpty { lines.append(Style.dim("Attached: " + attachments.joined(separator: ", ").escapingControlCharacters)) }
        lines.append(Style.dim("type to edit · Tab/↑↓ move · Enter choose · Ctrl-S post · Esc cancel"))
        if let status { lines.append(status.escapingControlCharacters) }
        return lines
    }

    private func lines(of list: ComposeSheet.OptionList) -> [String] {
        var lines = [Style.bold(list.title.escapingControlCharacters), rule]
        for (index, option) in list.options.enumerated() {
            let row = "\(index + 1) \(option.escapingControlCharacters)\(list.selected == index ? " ✓" : "")"
            lines.append(index == optionSelection ? "▸ " + Style.inverse(row) : "  " + row)
        }
        lines.append(Style.dim("↑↓ move · Enter pick · Esc back"))
        if let status { lines.append(status.escapingControlCharacters) }
        return lines
    }

    private var rule: String { String(repeating: "─", count: 40) }
}
