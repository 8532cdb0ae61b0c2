import AppexCore
import ArgumentParser
import Foundation

struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show appexd's log: what extensions wrote to their output, and appexd's own lines.",
        discussion: """
            With an identifier, only that extension's lines: what it wrote (each line after its identifier and \
            pid) and appexd's lines that name it, such as why it was ended. appexd keeps its log in the runtime \
            folder, in appexd.log and, once that grows past its limit, the one before it in appexd.log.1; both are \
            read, oldest first.

            Example:
              appex log com.example.notes.share --follow
            """
    )

    @Argument(help: "An extension's bundle identifier; without one, every line.", completion: Completions.extensions)
    var identifier: String?

    @Flag(name: .shortAndLong, help: "Keep printing lines as they are written, until interrupted.")
    var follow = false

    func run() async throws {
        let log = AppexHome.current.daemonLogURL
        let selection = LogSelection(identifier: identifier)
        var reader = LogFollower(url: log)
        let previous = URL(fileURLWithPath: log.path + ".1")
        if let older = try? Data(contentsOf: previous) {
            selection.print(LogFollower.lines(in: older))
        }
        guard FileManager.default.fileExists(atPath: log.path) || follow else {
            throw CommandFailure(status: CommandFailure.no, "appexd has written no log yet at \(log.path); it starts with the first request (`appex run`)")
        }
        selection.print(reader.readNewLines())
        while follow {
            try await Task.sleep(for: .milliseconds(200))
            selection.print(reader.readNewLines())
        }
    }
}

/// Which lines of appexd's log `appex log` prints.
struct LogSelection {
    var identifier: String?

    /// Whether `line` is the extension's own output (`ID[pid]: …`) or one of appexd's lines
    /// that names it, as a whole word; every line without an identifier.
    func includes(_ line: Substring) -> Bool {
        guard let identifier else { return true }
        if line.hasPrefix(identifier + "[") { return true }
        guard line.hasPrefix("appexd:") else { return false }
        var searched = line[...]
        while let found = searched.range(of: identifier) {
            let before = found.lowerBound == line.startIndex ? nil : line[line.index(before: found.lowerBound)]
            let after = found.upperBound == line.endIndex ? nil : line[found.upperBound]
            if !Self.continuesIdentifier(before), !Self.continuesIdentifier(after) { return true }
            searched = line[found.upperBound...]
        }
        return false
    }

    /// Whether `character` could be part of a bundle identifier, so that a match beside it
    /// is part of a longer one (`com.example.notes` in `com.example.notes.share`).
    private static func continuesIdentifier(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || character == "." || character == "-"
    }

    /// Prints the lines it includes, each with its control characters written out: what an
    /// extension wrote must not drive the terminal (an escape sequence, or a carriage return
    /// that draws over the line's prefix).
    func print(_ lines: [Substring]) {
        for line in lines where includes(line) { Swift.print(String(line).escapingControlCharacters) }
    }
}

/// Reads a log file as it grows, line by line, and starts again from the top when appexd
/// moves it aside and begins a new one.
struct LogFollower {
    let url: URL
    private var offset: UInt64 = 0
    private var inode: UInt64?
    private var unfinished = Data()

    init(url: URL) {
        self.url = url
    }

    /// The whole lines written since the last call.
    mutating func readNewLines() -> [Substring] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let size = (attributes[.size] as? NSNumber)?.uint64Value else { return [] }
        let current = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        if current != inode || size < offset {
            inode = current
            offset = 0
            unfinished = Data()
        }
        guard size > offset, let handle = try? FileHandle(forReadingFrom: url) else { return [] }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: Int(size - offset)) else { return [] }
        offset += UInt64(data.count)
        unfinished.append(data)
        guard let lastNewline = unfinished.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        let complete = unfinished[..<lastNewline]
        unfinished = Data(unfinished[unfinished.index(after: lastNewline)...])
        return Self.lines(in: Data(complete))
    }

    /// The lines of `data`, as text.
    static func lines(in data: Data) -> [Substring] {
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
    }
}
