import AppexHost
import AppexRegistry
import AppexSystem
import AppexItems
import ArgumentParser
import Foundation

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Send items to an extension, as a host app would, and print how the request ended.",
        discussion: """
            The items form one NSExtensionItem: the text as its content text and as a text attachment, \
            each URL and each file as an attachment. Returned text and URLs are printed; returned files are \
            saved into --output. Exit status: 0 completed, 1 cancelled, 2 could not start, 3 interrupted.
            """
    )

    @Argument(help: "The extension's bundle identifier, as `appex list` shows it.", completion: Completions.extensions)
    var identifier: String

    @Option(help: "Text to send; - reads it from standard input.")
    var text: String?

    @Option(help: "A URL to send; repeat for more.")
    var url: [String] = []

    @Option(help: "A file to send; repeat for more; - sends standard input. The extension gets it as a descriptor.", completion: .file())
    var file: [String] = []

    @Option(help: "Where to save returned files (default: a new folder in the temporary directory).", completion: .directory)
    var output: String?

    @Option(help: "Cancel the request after this many seconds without an answer; 0 waits for ever.")
    var timeout: Double = 60

    @Flag(help: "Start the extension waiting for a debugger before its principal class is made, print the pid to attach to, and wait with no timeout.")
    var waitForDebugger = false

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        try ContentItems.validate(text: text, files: file)
    }

    func run() async throws {
        let items = try inputItems()
        let folder = output.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("appex-run-\(UUID().uuidString.prefix(8))")
        let started = ContinuousClock.now
        let outcome: ExtensionRequestOutcome
        do {
            let target = try await NSExtension.extension(withIdentifier: identifier)
            if waitForDebugger {
                let registry = try RegistryAccess.open()
                try RegistryAccess.run { () throws(RegistryError) in try registry.setDebuggerWait(.once, extension: identifier) }
                let executable = try RegistryAccess.run { () throws(RegistryError) in try registry.extension(identifier) }?.executableURL.path
                Task.detached { Self.sayWhereToAttach(identifier, executable: executable ?? "") }
            }
            outcome = try await withTimeout(waitForDebugger ? 0 : timeout) { try await target.request(withInputItems: items) }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(ErrorText.describe(error))")
        }
        let elapsed = ContinuousClock.now - started
        let report = await RequestReport.make(identifier, outcome, took: elapsed, savingFilesIn: folder)
        if json {
            try Output.json(report)
        } else {
            print("\(identifier): " + report.lines().joined(separator: "\n").trimmingCharacters(in: .whitespaces))
        }
        switch outcome {
        case .completed: return
        case .cancelled: throw CommandFailure.silent(CommandFailure.no)
        case .interrupted: throw CommandFailure.silent(3)
        }
    }

    /// Prints, once the extension's program runs, the pid a debugger attaches to.
    private static func sayWhereToAttach(_ identifier: String, executable: String) {
        for _ in 0..<300 {
            if let pid = ProcessTree.programs(running: executable).first {
                FileHandle.standardError.write(Data("""
                    \(identifier) waits for a debugger before its principal class is made, as pid \(pid). Attach one:
                      lldb -p \(pid)      (or gdb -p \(pid)); set breakpoints, then `continue`

                    """.utf8))
                return
            }
            usleep(100_000)
        }
        FileHandle.standardError.write(Data("\(identifier) did not start within 30 s; `appex log \(identifier)` may say why\n".utf8))
    }

    private func inputItems() throws -> [NSExtensionItem] {
        try ContentItems.make(text: text, urls: url, files: file, fileOption: "--file ")
    }
}
