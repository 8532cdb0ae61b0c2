import AppexCore
import Foundation

/// A list to pick one from, as the interactive hosts draw it: ↑/↓ (or k/j) move, a number
/// picks that row, Enter picks the highlighted one, and q, Escape or Ctrl-C cancel. Labels,
/// which bundles chose, are drawn with their control characters written out as escapes.
struct ChoiceList {
    /// One row: what it is, and a dimmer detail after it.
    struct Choice {
        var label: String
        var detail: String
        /// A mark before the label, such as "recent".
        var note: String?
    }

    var title: String
    var choices: [Choice]
    var selected = 0

    /// The rows as drawn: the title, one line per choice, the keys.
    var lines: [String] {
        let labels = choices.map(\.label.escapingControlCharacters)
        let width = labels.map(\.count).max() ?? 0
        var lines = [Style.bold(title.escapingControlCharacters)]
        for (index, choice) in choices.enumerated() {
            let number = index < 9 ? "\(index + 1)" : " "
            let label = labels[index].padding(toLength: width, withPad: " ", startingAt: 0)
            let note = choice.note.map { "  " + Style.dim("(\($0.escapingControlCharacters))") } ?? ""
            let row = "\(number)  \(label)  \(Style.dim(choice.detail.escapingControlCharacters))\(note)"
            lines.append(index == selected ? "› " + Style.inverse(row) : "  " + row)
        }
        lines.append(Style.dim("↑/↓ move · 1–\(min(choices.count, 9)) or Enter pick · q cancel"))
        return lines
    }

    /// Runs the list on `terminal` until the user picks (the index) or cancels (nil).
    mutating func run(on terminal: Terminal) -> Int? {
        while true {
            terminal.draw(lines)
            guard let key = terminal.readKey() else { return nil }
            switch key {
            case .up, .character("k"): selected = (selected + choices.count - 1) % choices.count
            case .down, .character("j"), .tab: selected = (selected + 1) % choices.count
            case .enter: return selected
            case .character(let typed) where typed.wholeNumberValue.map { (1...min(choices.count, 9)).contains($0) } == true:
                selected = typed.wholeNumberValue! - 1
                terminal.draw(lines)
                return selected
            case .escape, .character("q"), .control("c"), .control("d"): return nil
            default: break
            }
        }
    }
}
