import AppexCore
import Testing

/// Text a bundle or an extension chose stays one line and can't drive a terminal.
@Suite struct ControlCharacterTests {
    @Test(arguments: [
        ("plain text, with a tab\tand ünïcödé", "plain text, with a tab\tand ünïcödé"),
        ("two\nlines", "two\\nlines"),
        ("over\rwritten", "over\\rwritten"),
        ("\u{1B}[31mred\u{1B}[0m", "\\u{1B}[31mred\\u{1B}[0m"),
        ("bell\u{07} delete\u{7F} c1\u{9B}", "bell\\u{7} delete\\u{7F} c1\\u{9B}"),
        ("", ""),
    ])
    func controlCharactersAreWrittenOut(text: String, escaped: String) {
        #expect(text.escapingControlCharacters == escaped)
    }
}
