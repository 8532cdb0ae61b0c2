import Foundation
import Glibc

/// One line on standard error that says what long work is doing, redrawn in place as it goes
/// and erased when it ends: only on a terminal that can be drawn on, never into a pipe or a
/// file, nor with `TERM=dumb`.
final class ProgressLine: Sendable {
    private let subject: String
    private let shown: Bool

    /// A line for `subject`, such as "Installing Notes.app"; shown only where it can be.
    init(_ subject: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.subject = subject
        shown = isatty(STDERR_FILENO) == 1 && !Colour.isDumb(environment)
    }

    /// Shows `step`: "Installing Notes.app: copying…".
    func show(_ step: String) {
        guard shown else { return }
        write("\r\u{1B}[K\(subject): \(step)…")
    }

    /// Erases the line, leaving the terminal as it was.
    func end() {
        guard shown else { return }
        write("\r\u{1B}[K")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
