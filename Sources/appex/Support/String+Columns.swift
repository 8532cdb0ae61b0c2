extension String {
    /// The text padded with spaces to `width` characters, for a column of a table; text as
    /// wide or wider gets one space, so columns never run together.
    func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }

    /// The text in a column `width` characters wide: padded with spaces, or cut to fit with
    /// an ellipsis when longer, so a table's columns stay in line and a cut shows.
    func column(_ width: Int) -> String {
        count <= width ? padded(width) : String(prefix(width - 1)) + "…"
    }
}
