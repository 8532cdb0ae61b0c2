import AppexCore
import AppexRegistry
import ArgumentParser
import Foundation

struct TransfersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfers",
        abstract: "List the background transfers: session, task, owner, state, bytes and progress.",
        discussion: "Reads the registry, where appexd keeps every task until its app is uninstalled. --watch reads it again every half second until SIGINT or SIGTERM: on a terminal it redraws the list in place, elsewhere it prints the list again when it changes."
    )

    @Option(help: "Only this session's tasks.")
    var session: String?

    @Flag(help: "Follow the tasks live.")
    var watch = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let registry = try RegistryAccess.open()
        let read = { () throws in try RegistryAccess.run { () throws(RegistryError) in try registry.transfers(session: session) }.map(TransferRow.init) }
        if json { return try Output.json(try read()) }
        guard watch else { return print(Self.table(try read()), terminator: "") }
        // On a terminal, the list is drawn again in place; elsewhere, printed again when it changes.
        let stop = InterruptSignals()
        let onTerminal = isatty(STDOUT_FILENO) == 1 && !Colour.isDumb()
        var printed: String?
        while !stop.received {
            let table = Self.table(try read())
            if onTerminal {
                print("\u{1B}[H\u{1B}[J" + table, terminator: "")
            } else if table != printed {
                print((printed == nil ? "" : "\n") + table, terminator: "")
            }
            printed = table
            fflush(nil)
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    /// The tasks as a table, one line each, or a line that says there are none.
    static func table(_ rows: [TransferRow]) -> String {
        guard !rows.isEmpty else { return "No background transfers.\n" }
        let sessionWidth = max(8, rows.map(\.session.count).max() ?? 0) + 2
        let ownerWidth = max(6, rows.map(\.owner.count).max() ?? 0) + 2
        var text = "SESSION".padded(sessionWidth) + "TASK".padded(6) + "KIND".padded(10) + "OWNER".padded(ownerWidth)
            + "STATE".padded(11) + "BYTES".padded(22) + "PROGRESS\n"
        for row in rows {
            text += row.session.padded(sessionWidth) + String(row.task).padded(6) + row.kind.padded(10) + row.owner.padded(ownerWidth)
                + row.state.padded(11) + row.bytesText.padded(22) + row.progressBar + "\n"
        }
        return text
    }
}

/// One background task, as `appex transfers` prints it.
struct TransferRow: Encodable {
    var app: String
    var session: String
    var task: Int
    var kind: String
    var owner: String
    var state: String
    var url: String
    /// Bytes sent (an upload) or received (a download) so far.
    var bytes: Int64
    /// Bytes to send or receive in all; -1 while unknown.
    var expectedBytes: Int64
    var statusCode: Int?
    var attempts: Int
    var error: String?
    /// The error's `NSURLErrorDomain` code, as `URLSession` reports it.
    var errorCode: Int?

    init(_ task: TransferTask) {
        app = task.appIdentifier
        // The extension chose the session's name; the table is printed on a terminal.
        session = task.sessionIdentifier.escapingControlCharacters
        self.task = task.taskIdentifier
        kind = task.kind.rawValue
        owner = task.owner
        state = task.state.rawValue
        url = task.request.url.absoluteString
        bytes = task.kind == .upload ? task.bytesSent : task.bytesReceived
        expectedBytes = task.kind == .upload ? task.bytesExpectedToSend : task.bytesExpectedToReceive
        statusCode = task.statusCode
        attempts = task.attempts
        error = task.error
        errorCode = task.errorCode?.rawValue
    }

    var bytesText: String {
        expectedBytes >= 0 ? "\(Self.size(bytes)) of \(Self.size(expectedBytes))" : Self.size(bytes)
    }

    /// `[████████░░░░░░░░░░░░]  40%`, or the bar's place left empty while the size is unknown.
    var progressBar: String {
        guard expectedBytes > 0 else { return state == "completed" ? "[" + String(repeating: "█", count: 20) + "] 100%" : "" }
        let fraction = min(1, Double(bytes) / Double(expectedBytes))
        let filled = Int((fraction * 20).rounded(.down))
        let percent = String(Int((fraction * 100).rounded(.down)))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: 20 - filled) + "] "
            + String(repeating: " ", count: 3 - percent.count) + percent + "%"
    }

    /// `812 B`, `4.2 KB`, `1.0 MB`, `3.4 GB`: decimal units, as file managers show sizes.
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
