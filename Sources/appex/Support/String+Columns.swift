extension String {
    /// The text padded with spaces to `width` characters, for a column of a table; text as
    /// wide or wider gets one space, so columns never run together.
    func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
