/// The few text styles the interactive hosts draw with, as SGR sequences.
enum Style {
    static func bold(_ text: String) -> String { "\u{1B}[1m\(text)\u{1B}[0m" }
    static func dim(_ text: String) -> String { "\u{1B}[2m\(text)\u{1B}[0m" }
    static func inverse(_ text: String) -> String { "\u{1B}[7m\(text)\u{1B}[0m" }

    /// `text` cut to `width` visible characters, its escape sequences kept whole and not counted.
    static func truncate(_ text: String, to width: Int) -> String {
        var result = ""
        var visible = 0
        var inEscape = false
        for character in text {
            if inEscape {
                result.append(character)
                if character.isLetter { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
                result.append(character)
            } else if visible < width {
                result.append(character)
                visible += 1
            }
        }
        return visible >= width && text.contains("\u{1B}") ? result + "\u{1B}[0m" : result
    }
}
