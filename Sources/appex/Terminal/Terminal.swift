import Foundation
import Glibc

/// The user's terminal, for the interactive hosts (`appex share`, `appex action`): keys in,
/// lines out, in raw mode while a host draws, and as it was afterwards.
///
/// A host draws in place, below the shell's prompt, with a few sequences every terminal
/// knows: carriage return, cursor up (`CSI n A`), erase below (`CSI J`) and colours
/// (`CSI … m`). It never takes the alternate screen, so what it printed last stays in the
/// scrollback.
final class Terminal {
    private let input: Int32
    private let output: Int32
    private var saved = termios()
    private var isRaw = false
    /// How many lines the last ``draw(_:)`` left on the screen, which the next one replaces.
    private var drawnLines = 0

    /// Whether ``input`` was opened here, and is closed with the terminal.
    private let ownsInput: Bool

    /// The terminal on standard output, or nil when it is not one. Keys come from standard
    /// input, or from the controlling terminal (`/dev/tty`) when standard input is piped,
    /// as in `cat notes.txt | appex share --text -`.
    /// With `TERM=dumb` there is none: such a terminal can't be drawn on in place.
    static func standard() -> Terminal? {
        guard isatty(STDOUT_FILENO) == 1, !Colour.isDumb() else { return nil }
        if isatty(STDIN_FILENO) == 1 { return Terminal(input: STDIN_FILENO, output: STDOUT_FILENO, ownsInput: false) }
        let controlling = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard controlling >= 0 else { return nil }
        guard isatty(controlling) == 1 else {
            close(controlling)
            return nil
        }
        return Terminal(input: controlling, output: STDOUT_FILENO, ownsInput: true)
    }

    private init(input: Int32, output: Int32, ownsInput: Bool) {
        self.input = input
        self.output = output
        self.ownsInput = ownsInput
    }

    deinit {
        restore()
        if ownsInput { close(input) }
    }

    /// Columns, from the terminal's window size; 80 when it doesn't say.
    var columns: Int {
        var size = winsize()
        return ioctl(output, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    /// Keys arrive one by one, unechoed, Ctrl-C among them (`.control("c")`, which every
    /// host reads as cancel), so the terminal is always restored; output is written as given.
    func enterRaw() {
        guard !isRaw, tcgetattr(input, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        raw.c_iflag &= ~tcflag_t(ICRNL | IXON)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        if tcsetattr(input, TCSAFLUSH, &raw) == 0 { isRaw = true }
        write("\u{1B}[?25l") // hide the cursor while drawing
    }

    /// Puts the terminal back as it was.
    func restore() {
        guard isRaw else { return }
        write("\u{1B}[?25h")
        tcsetattr(input, TCSAFLUSH, &saved)
        isRaw = false
    }

    /// Replaces what the last `draw` drew with `lines`, each cut to the terminal's width.
    func draw(_ lines: [String]) {
        var text = drawnLines > 0 ? "\r\u{1B}[\(drawnLines)A\u{1B}[J" : "\r\u{1B}[J"
        let width = max(columns - 1, 10)
        for line in lines { text += Style.truncate(line, to: width) + "\r\n" }
        drawnLines = lines.count
        write(text)
    }

    /// Leaves what was drawn on the screen: the next `draw` starts below it.
    func keepDrawing() {
        drawnLines = 0
    }

    /// Writes `text` as it is.
    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Whether a key is waiting to be read, without waiting for one.
    var hasInput: Bool {
        var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }

    /// The next key, waiting for it; nil at the end of input.
    func readKey() -> Key? {
        guard let byte = readByte(waiting: nil) else { return nil }
        if byte == 0x1B {
            // An escape sequence arrives at once; a lone Escape is followed by nothing.
            guard let next = readByte(waiting: 50), next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else { return .escape }
            var parameters: [UInt8] = []
            while let final = readByte(waiting: 50) {
                if (0x40...0x7E).contains(final) { return Key(sequence: parameters, final: final) }
                parameters.append(final)
            }
            return .escape
        }
        return Key(byte: byte, more: { self.readByte(waiting: 50) })
    }

    /// One byte of input, waiting at most `milliseconds` (nil: for ever).
    private func readByte(waiting milliseconds: Int32?) -> UInt8? {
        if let milliseconds {
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, milliseconds) == 1 else { return nil }
        }
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(input, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }
}
