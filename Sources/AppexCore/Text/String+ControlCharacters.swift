extension String {
    /// The text with every control character but the tab written out as an escape (`\n`,
    /// `\r`, `\u{1B}`), so that it stays one line and can't drive a terminal: for text that
    /// a bundle or an extension chose, in a log line or on the user's screen.
    public var escapingControlCharacters: String {
        escapingControlCharacters(keepingLineBreaks: false)
    }

    /// The text with every control character but the tab, and the line feed when
    /// `keepingLineBreaks`, written out as an escape: for text of several lines that an
    /// extension chose, printed on the user's terminal.
    public func escapingControlCharacters(keepingLineBreaks: Bool) -> String {
        let isEscaped = { (scalar: Unicode.Scalar) in Self.isEscaped(scalar) && !(keepingLineBreaks && scalar == "\n") }
        guard unicodeScalars.contains(where: isEscaped) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            guard isEscaped(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            default: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return escaped
    }

    /// C0 controls but the tab, DEL, and the C1 controls, which terminals also obey.
    private static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
    }
}
