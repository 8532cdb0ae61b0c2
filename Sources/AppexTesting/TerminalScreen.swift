/// What a terminal would show for the bytes a program wrote: a grid of characters, with the
/// sequences the interactive hosts use interpreted (cursor moves, erases, line feeds) and
/// colours ignored. Tests read the screen back as a person would see it.
public struct TerminalScreen: Sendable {
    /// The rows, each as wide as the screen.
    public private(set) var rows: [[Character]]
    public let columns: Int
    private var row = 0
    private var column = 0

    public init(columns: Int = 100, rows count: Int = 40) {
        self.columns = columns
        rows = Array(repeating: Array(repeating: " ", count: columns), count: count)
    }

    /// The screen for `output`, written from the start.
    public init(rendering output: String, columns: Int = 100, rows: Int = 40) {
        self.init(columns: columns, rows: rows)
        write(output)
    }

    /// The screen's text: each row with its trailing spaces removed, empty rows at the end dropped.
    public var text: String {
        var lines = rows.map { String($0).replacingTrailingSpaces() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// Interprets `output`.
    public mutating func write(_ output: String) {
        var characters = output[...]
        while let character = characters.popFirst() {
            switch character {
            case "\r": column = 0
            case "\n", "\r\n":
                if character == "\r\n" { column = 0 }
                lineFeed()
            case "\u{8}": column = max(column - 1, 0)
            case "\u{1B}":
                guard characters.first == "[" else {
                    characters = characters.dropFirst()
                    continue
                }
                characters = characters.dropFirst()
                var parameters = ""
                while let next = characters.first, !next.isLetter, next != "~" {
                    parameters.append(next)
                    characters = characters.dropFirst()
                }
                guard let final = characters.popFirst() else { return }
                control(final, parameters)
            default:
                guard character.unicodeScalars.first.map({ $0.value >= 0x20 }) == true else { continue }
                if column >= columns {
                    column = 0
                    lineFeed()
                }
                rows[row][column] = character
                column += 1
            }
        }
    }

    private mutating func lineFeed() {
        if row == rows.count - 1 {
            rows.removeFirst()
            rows.append(Array(repeating: " ", count: columns))
        } else {
            row += 1
        }
    }

    private mutating func control(_ final: Character, _ parameters: String) {
        let numbers = parameters.split(separator: ";").map { Int($0) ?? 0 }
        let count = max(numbers.first ?? 1, 1)
        switch final {
        case "A": row = max(row - count, 0)
        case "B": row = min(row + count, rows.count - 1)
        case "C": column = min(column + count, columns - 1)
        case "D": column = max(column - count, 0)
        case "G": column = min(max(count - 1, 0), columns - 1)
        case "H", "f":
            row = min(max((numbers.first ?? 1) - 1, 0), rows.count - 1)
            column = min(max((numbers.dropFirst().first ?? 1) - 1, 0), columns - 1)
        case "K":
            for index in column..<columns { rows[row][index] = " " }
        case "J":
            if numbers.first == 2 {
                rows = rows.map { _ in Array(repeating: " ", count: columns) }
            } else {
                for index in column..<columns { rows[row][index] = " " }
                for below in (row + 1)..<rows.count { rows[below] = Array(repeating: " ", count: columns) }
            }
        default:
            break // colours (m), cursor visibility (?25l/h) and the rest change no character
        }
    }
}

extension String {
    fileprivate func replacingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
