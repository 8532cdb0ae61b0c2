import AppexCore
import AppexSystem
import Foundation
import Glibc

/// An extension's standard output and error, on their way to appexd's log through a pipe
/// appexd reads: each line goes to the log after the name and pid of the extension that
/// wrote it, so that what an extension writes can't pass for appexd's own lines
/// (`appexd: …`) or another extension's.
///
/// The log keeps at most ``byteLimit`` of each process's output. The log lives in the runtime
/// folder, often a small tmpfs shared with the rest of the session, so an extension that
/// writes without end could otherwise fill it. Past the limit, appexd says so in a line of
/// its own, then reads the rest and drops it, so the extension never blocks on a full pipe.
/// When the process ends, it says how much was dropped.
struct ExtensionOutput: Sendable {
    /// The longest line passed on whole; a longer one goes on as lines of this length.
    static let lineLimit = 16 * 1024
    /// The most of one process's output the log keeps, newlines included.
    static let byteLimit = 1024 * 1024

    /// The end appexd reads.
    let reading: FileDescriptor
    /// The end the extension gets as its standard output and error; appexd closes its copy
    /// once the extension has started.
    let writing: FileDescriptor

    init() throws(SystemError) {
        (reading, writing) = try FileDescriptor.pipe()
    }

    /// Copies the extension's lines to appexd's log, each after `label` and a colon, on a
    /// thread of its own, until every process holding the writing end has closed it; then
    /// closes the reading end.
    func forward(as label: String) {
        let thread = Thread { [reading] in
            Self.copyLines(from: reading, label: label)
            reading.close()
        }
        thread.name = "appex-output-\(label)"
        thread.stackSize = 128 * 1024
        thread.start()
    }

    /// Lets go of both ends: the extension never started.
    func close() {
        reading.close()
        writing.close()
    }

    /// `line` with its control characters written out as escapes (a carriage return that
    /// would draw over the prefix, an escape sequence for whoever reads the log in a
    /// terminal); as it is when it has none, as most lines don't.
    static func printable(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        // C0 controls but the tab, DEL, and the lead byte of UTF-8's C1 controls.
        guard line.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F || $0 == 0xC2 }) else { return line }
        return ArraySlice(String(decoding: line, as: UTF8.self).escapingControlCharacters.utf8)
    }

    /// Copies the lines of `input` to appexd's log (``DaemonLog``), each after `label` and a
    /// colon, until the end of `input`; keeps at most `limit` bytes of them, and says so in
    /// appexd's own lines if it dropped any.
    static func copyLines(from input: FileDescriptor, label: String, limit: Int = byteLimit) {
        let prefix = Array("\(label): ".utf8)
        var kept = 0
        var dropped = 0
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        /// Passes `line` on, or drops it past the limit; it came with a newline, unless it is a
        /// piece of a longer line.
        func emit(_ line: ArraySlice<UInt8>, newline: Bool = true) {
            guard dropped == 0, kept + line.count + 1 <= limit else {
                if dropped == 0 {
                    DaemonLog.write(line: "appexd: \(label) wrote more than the \(limit) bytes of output the log keeps of one process; the rest is read and dropped")
                }
                dropped += line.count + (newline ? 1 : 0)
                return
            }
            kept += line.count + 1
            // One write per line, so lines of extensions writing at once don't interleave.
            DaemonLog.append(prefix + printable(line) + [UInt8(ascii: "\n")])
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(input.rawValue, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending += chunk[..<count]
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                emit(pending[start..<newline])
                start = newline + 1
            }
            while pending.endIndex - start >= lineLimit {
                emit(pending[start..<(start + lineLimit)], newline: false)
                start += lineLimit
            }
            pending.removeSubrange(..<start)
        }
        if !pending.isEmpty { emit(pending[...], newline: false) }
        if dropped > 0 {
            DaemonLog.write(line: "appexd: \(label) has closed its output; \(dropped) bytes of it were dropped")
        }
    }
}
