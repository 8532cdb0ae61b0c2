/// The counts `wc` gives for a text: lines, words and characters.
public struct TextStatistics: Sendable, Hashable {
    /// Line breaks, plus one for a last line without one.
    public var lines: Int
    /// Runs of characters between whitespace.
    public var words: Int
    /// Characters, as people count them (grapheme clusters).
    public var characters: Int

    public init(_ text: String) {
        characters = text.count
        words = text.split(whereSeparator: \.isWhitespace).count
        let breaks = text.reduce(0) { $0 + ($1.isNewline ? 1 : 0) }
        lines = breaks + (text.last.map { $0.isNewline ? 0 : 1 } ?? 0)
    }

    /// "12 words, 60 characters, 2 lines", with singulars where they belong.
    public var summary: String {
        func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        return [counted(words, "word"), counted(characters, "character"), counted(lines, "line")].joined(separator: ", ")
    }
}
