import Foundation
import Glibc

/// Whether `appex` may colour and move the cursor on a descriptor: only on a terminal, never
/// with `NO_COLOR` set (no-color.org), and nothing but plain lines when `TERM=dumb`.
enum Colour {
    /// Whether colour may be written to `descriptor`.
    static func isWanted(on descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard isatty(descriptor) == 1, !isDumb(environment) else { return false }
        return environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// Whether the terminal can't take escape sequences at all (`TERM=dumb`), so nothing is
    /// drawn in place and nothing is asked with the arrow keys.
    static func isDumb(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment["TERM"] == "dumb"
    }

    static func red(_ text: String) -> String { "\u{1B}[31m\(text)\u{1B}[0m" }
    static func yellow(_ text: String) -> String { "\u{1B}[33m\(text)\u{1B}[0m" }
}
