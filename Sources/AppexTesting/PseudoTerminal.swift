import AppexLocking
public import Foundation
import Glibc
import Synchronization

/// Runs a program on a pseudo-terminal, as a person at a terminal would: keys go in, and the
/// screen it draws can be read back (``TerminalScreen``), so tests drive the interactive
/// hosts (`appex share`, `appex action`, `appex today`) with real keystrokes.
public final class PseudoTerminal: Sendable {
    /// Keys, as a terminal sends them.
    public enum Keys {
        public static let up = "\u{1B}[A"
        public static let down = "\u{1B}[B"
        public static let right = "\u{1B}[C"
        public static let left = "\u{1B}[D"
        public static let enter = "\r"
        public static let escape = "\u{1B}"
        public static let tab = "\t"
        public static let backspace = "\u{7F}"
        public static let controlC = "\u{3}"
    }

    private let master: Int32
    private let process: Process
    /// What the program wrote, as the reading thread receives it.
    private final class Received: Sendable {
        let bytes = Locked<[UInt8]>([])
        /// Whether the reader has seen the terminal's end.
        let ended = Atomic(false)
        let finished = DispatchSemaphore(value: 0)
    }

    private let received = Received()
    public let columns: Int
    public let rows: Int

    /// Starts `executable` with `arguments` and `environment` on a new terminal of
    /// `columns` × `rows`, as on a user's colour terminal: `TERM` is `term`, and `NO_COLOR`,
    /// should the test's own environment have it, is set only when `noColor` says so.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String], columns: Int = 100, rows: Int = 40,
                term: String = "xterm-256color", noColor: Bool = false) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "openpty failed: \(String(cString: strerror(errno)))"])
        }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        self.master = master
        self.columns = columns
        self.rows = rows
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = environment.merging(["TERM": term, "COLUMNS": "\(columns)", "LINES": "\(rows)"]) { $1 }
        environment["NO_COLOR"] = noColor ? "1" : nil
        process.environment = environment
        // The test keeps its own copy of the terminal's other end until the program has
        // exited and everything it wrote has been read: once every copy is closed, Linux may
        // answer the last reads with EIO and drop what was still buffered.
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = terminal
        let received = self.received
        let descriptor = master
        let process = self.process
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            // The kernel passes what the program wrote to this end of the terminal later, in
            // the background (the tty's flip buffer), so its last lines can arrive after it
            // has exited; on a loaded machine, a while after.
            var quietPollsSinceExit = 0
            while true {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let polled = poll(&ready, 1, 50)
                if polled < 0 && errno == EINTR { continue }
                if polled == 0 {
                    // Nothing more to read: done once the program has exited and a second has
                    // passed since with nothing more.
                    if !process.isRunning {
                        quietPollsSinceExit += 1
                        if quietPollsSinceExit >= 20 { break }
                    }
                    continue
                }
                quietPollsSinceExit = 0
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                received.bytes.withLock { $0 += buffer[..<count] }
            }
            try? terminal.close()
            received.ended.store(true, ordering: .releasing)
            received.finished.signal()
        }
        try process.run()
        reader.start()
    }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        // Bounded: a process that kept a copy of the terminal would hold its end open.
        _ = received.finished.wait(timeout: .now() + 5)
        close(master)
    }

    /// Everything the program wrote so far, as text.
    public var transcript: String {
        received.bytes.withLock { String(decoding: $0, as: UTF8.self) }
    }

    /// Everything the program wrote, once it has exited and the last of it has been read: the
    /// kernel may pass a program's last lines on after it has exited, so ``transcript`` read
    /// straight after ``waitForExit(timeout:)`` can miss them. Throws after `timeout`.
    public func finalTranscript(timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while !received.ended.load(ordering: .acquiring) {
            guard ContinuousClock.now < deadline else { throw TerminalWaitError(expected: "the program's last output", screen: screen) }
            try await Task.sleep(for: .milliseconds(10))
        }
        return transcript
    }

    /// What the terminal shows now.
    public var screen: String {
        TerminalScreen(rendering: transcript, columns: columns, rows: rows).text
    }

    /// Types `keys`.
    public func send(_ keys: String) {
        var bytes = Array(keys.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Waits until the screen shows `text`, and returns the screen; throws with the screen
    /// after `timeout`.
    @discardableResult
    public func waitForScreen(containing text: String, timeout: Duration = .seconds(30)) async throws -> String {
        try await waitForScreen(showing: text, timeout: timeout) { $0.contains(text) }
    }

    /// Waits until the screen is one that `condition` accepts, and returns it; throws with the
    /// screen, and `expected` as what was awaited, after `timeout`.
    @discardableResult
    public func waitForScreen(showing expected: String, timeout: Duration = .seconds(30), where condition: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let shown = screen
            if condition(shown) { return shown }
            guard ContinuousClock.now < deadline, process.isRunning || !received.ended.load(ordering: .acquiring) else {
                throw TerminalWaitError(expected: expected, screen: shown, exitStatus: process.isRunning ? nil : process.terminationStatus)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits for the program to exit, at most `timeout`, and returns its status.
    public func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw TerminalWaitError(expected: "the program to exit", screen: screen) }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }
}

/// A screen that did not show what a test waited for.
public struct TerminalWaitError: Error, CustomStringConvertible {
    public var expected: String
    public var screen: String
    /// The program's exit status, if it ended before the screen showed what was expected.
    public var exitStatus: Int32?
    public var description: String {
        "waited for \(expected)\(exitStatus.map { ", but the program exited with status \($0)" } ?? ""); the screen shows:\n\(screen)"
    }
}
