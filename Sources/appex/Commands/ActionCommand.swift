import AppexAction
import AppexCore
import AppexHost
import AppexItems
import AppexRegistry
import AppexWire
import ArgumentParser
import Foundation

/// `appex action`: a terminal host of Action extensions. It sends content to the Action the
/// user picks and puts what comes back in its place: printed, or written to `--output`.
struct ActionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "action",
        abstract: "Run an Action extension on files, text or URLs, and print what it returns in their place.",
        discussion: """
            The Actions whose activation rules accept the content are listed in the user's order, to pick one \
            with the arrow keys or its number; --to ID skips the list. Without a terminal, or with --json, \
            nothing is asked: pass --to. Exit status: 0 completed, 1 cancelled or nothing accepts the \
            content, 2 could not start, 3 interrupted.
            """
    )

    @OptionGroup var content: ContentOptions

    @OptionGroup var host: HostOptions

    @Option(help: "Write the result here instead of printing it: the text or the one file, or a folder when several come back.",
            completion: .file())
    var output: String?

    func run() async throws {
        let items = try content.items()
        let started = ContinuousClock.now
        let chosen = try await host.chooseExtension(of: [.action], for: items, content: content.summary, command: "action", on: host.terminal)
        try await Self.perform(chosen, items: items, output: output, timeout: host.timeout, json: host.json, started: started)
    }

    /// Runs the Action `chosen` on `items` and puts what it returns in their place: printed,
    /// or written to `output`. `appex share` runs the Actions picked from its list this way.
    static func perform(_ chosen: NSExtension, items: [NSExtensionItem], output: String?, timeout: Double, json: Bool,
                        started: ContinuousClock.Instant) async throws {
        let outcome: ExtensionRequestOutcome
        do {
            outcome = try await withTimeout(timeout) { try await chosen.request(withInputItems: items) }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(ErrorText.describe(error))")
        }
        var report = ActionReport(extensionIdentifier: chosen.identifier, outcome: "", content: [], milliseconds: (ContinuousClock.now - started).fractionalMilliseconds)
        switch outcome {
        case .completed(let returned):
            report.outcome = "completed"
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appex-action-\(UUID().uuidString.prefix(8))")
            let result: ActionResult
            do {
                result = try await ActionResult.load(returned, savingFilesIn: scratch)
            } catch {
                throw CommandFailure(status: 3, "\(chosen.identifier) completed, but what it returned could not be read: \(ErrorText.describe(error))")
            }
            report.content = result.parts.map(ActionReport.Part.init)
            if let output {
                report.output = try ActionOutput.write(result, to: URL(fileURLWithPath: output))
                try? FileManager.default.removeItem(at: scratch)
            }
            if json { return try Output.json(report) }
            if let written = report.output {
                FileHandle.standardError.write(Data("\(chosen.summary.displayName): wrote \(written)\n".utf8))
            } else {
                ActionOutput.print(result)
            }
        case .cancelled(let error):
            report.outcome = "cancelled"
            report.error = ErrorText.describe(error)
            if json { try Output.json(report) }
            throw CommandFailure(status: CommandFailure.no, json ? "" : "\(chosen.summary.displayName) cancelled: \(report.error!)")
        case .interrupted(let interruption):
            report.outcome = "interrupted"
            report.error = interruption.message
            if json { try Output.json(report) }
            throw CommandFailure(status: 3, json ? "" : "\(chosen.summary.displayName) was interrupted: \(interruption.message)")
        }
    }
}

/// What `appex action --json` prints.
struct ActionReport: Encodable {
    /// One piece of returned content: exactly one field is set.
    struct Part: Encodable {
        var text: String?
        var url: String?
        var file: String?

        init(_ part: ActionResult.Part) {
            switch part {
            case .text(let text, _): self.text = text
            case .url(let url): self.url = url.absoluteString
            case .file(let file): self.file = file.path
            }
        }
    }

    var extensionIdentifier: String
    /// completed, cancelled or interrupted.
    var outcome: String
    var content: [Part]
    /// Where `--output` put the content.
    var output: String?
    var error: String?
    var milliseconds: Double
}

/// How `appex action` puts an Action's result in place of the content it sent.
enum ActionOutput {
    /// Prints the text and URLs, and the paths of files, one after another. On a terminal,
    /// the text's control characters but its line breaks are written out as escapes, so the
    /// extension can't drive the terminal; into a pipe or a file, the text goes as it is.
    static func print(_ result: ActionResult) {
        let toTerminal = isatty(STDOUT_FILENO) == 1
        for part in result.parts {
            switch part {
            case .text(let text, _):
                let text = toTerminal ? text.escapingControlCharacters(keepingLineBreaks: true) : text
                Swift.print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            case .url(let url): Swift.print(url.absoluteString)
            case .file(let file): Swift.print(file.path)
            }
        }
    }

    /// Writes one part to `destination`, or several into a folder there, each under its
    /// suggested name; returns the path written.
    static func write(_ result: ActionResult, to destination: URL) throws -> String {
        do {
            if result.parts.count == 1 {
                try write(result.parts[0], to: destination)
                return destination.path
            }
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
            for (index, part) in result.parts.enumerated() {
                try write(part, to: destination.appendingPathComponent(name(of: part, index: index)))
            }
            return destination.path
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: can't write the result to \(destination.path): \(FileErrorText.describe(error))")
        }
    }

    private static func write(_ part: ActionResult.Part, to file: URL) throws {
        switch part {
        case .text(let text, _): try Data(text.utf8).write(to: file, options: .atomic)
        case .url(let url): try Data((url.absoluteString + "\n").utf8).write(to: file, options: .atomic)
        case .file(let saved):
            try? FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: saved, to: file)
        }
    }

    private static func name(of part: ActionResult.Part, index: Int) -> String {
        switch part {
        case .text(_, let suggested): suggested ?? "text-\(index + 1).txt"
        case .url: "url-\(index + 1).txt"
        case .file(let file): file.lastPathComponent
        }
    }
}
