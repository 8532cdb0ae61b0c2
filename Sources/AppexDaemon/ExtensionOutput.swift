import AppexSystem
import Foundation
import Glibc

/// An extension's standard output and error, on their way to appexd's log through a pipe
/// appexd reads: each line goes to the log after the name and pid of the extension that
/// wrote it, so that what an extension writes can't pass for appexd's own lines
/// (`appexd: …`) or another extension's.
struct ExtensionOutput: Sendable {
    /// The longest line passed on whole; a longer one goes on as lines of this length.
    static let lineLimit = 16 * 1024

    /// The end appexd reads.
    let reading: FileDescriptor
    /// The end the extension gets as its standard output and error; appexd closes its copy
    /// once the extension has started.
    let writing: FileDescriptor

    init() throws(SystemError) {
        (reading, writing) = try FileDescriptor.pipe()
    }

    /// Copies the extension's lines to `log`, each after `label` and a colon, on a thread of
    /// its own, until every process holding the writing end has closed it; then closes the
    /// reading end.
    func forward(to log: FileDescriptor, as label: String) {
        let thread = Thread { [reading] in
            Self.copyLines(from: reading, to: log, prefix: Array("\(label): ".utf8))
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

    static func copyLines(from input: FileDescriptor, to log: FileDescriptor, prefix: [UInt8]) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        func emit(_ line: ArraySlice<UInt8>) {
            // One write per line, so lines of extensions writing at once don't interleave.
            try? log.write(prefix + line + [UInt8(ascii: "\n")])
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
                emit(pending[start..<(start + lineLimit)])
                start += lineLimit
            }
            pending.removeSubrange(..<start)
        }
        if !pending.isEmpty { emit(pending[...]) }
    }
}
