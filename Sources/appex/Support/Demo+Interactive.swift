import AppexCore
import AppexRegistry
import Foundation

extension Demo {
    /// One step a person drives: the real `appex` command, run in this terminal on the
    /// demo's home, with what to do in it.
    struct DrivenStep {
        var name: String
        var howTo: String
        var arguments: [String]
    }

    /// The story's steps, as a person drives them with the real commands.
    func drivenSteps() throws -> [DrivenStep] {
        let list = root.appendingPathComponent("Groceries.txt")
        try "Groceries: oat milk, bread, apples\nand coffee for Friday\n".write(to: list, atomically: true, encoding: .utf8)
        return [
            DrivenStep(name: "share a text", howTo: """
                Pick Add to Notes with the arrow keys and Enter, or its number. In the sheet, type to edit the text,
                Tab moves to the Folder row and Enter opens it; Ctrl-S posts, Esc cancels.
                """, arguments: ["share", "--text", "Buy oat milk", "--url", "https://www.swift.org"]),
            DrivenStep(name: "share a file", howTo: """
                Share \(list.lastPathComponent) to Add to Notes: its sheet starts empty, as Apple's does for a file,
                and the file is filed after whatever you write. Ctrl-S posts.
                """, arguments: ["share", list.path]),
            DrivenStep(name: "run an action", howTo: """
                Pick Make Uppercase or Word Count: what it returns replaces the text.
                """, arguments: ["action", "--text", "An Action transforms what it is given and returns it"]),
            DrivenStep(name: "open the Today view", howTo: """
                Latest Note shows what you shared; System Load ticks each second. ↑/↓ select a widget, Enter
                expands it, a number follows that link (y confirms, and the app opens), q leaves the view.
                """, arguments: ["today"]),
        ]
    }

    /// The story driven by a person: after the install, each step runs the real command in
    /// this terminal, once the person presses Enter; s skips a step, q ends the demo.
    func runInteractively() async throws {
        print("Appex demo, driven by you, in a private home: \(registry.home.dataDirectory.path)")
        try install(try assemble())
        do {
            try driveTheStory()
        } catch {
            await stopDaemon()
            throw error
        }
        await stopDaemon()
    }

    private func driveTheStory() throws {
        var ran: Set<String> = []
        for step in try drivenSteps() {
            heading(step.name.prefix(1).uppercased() + step.name.dropFirst() + ": appex " + step.arguments.joined(separator: " "))
            print(step.howTo.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            print("  Press Enter to \(step.name), s and Enter to skip it, q and Enter to end the demo. ", terminator: "")
            fflush(nil)
            switch readLine()?.trimmingCharacters(in: .whitespaces).lowercased() {
            case "s":
                continue
            case "q", nil:
                return
            default:
                break
            }
            let started = clock.now
            let status = try runAppex(step.arguments)
            ran.insert(step.name)
            record(step.name + " (with you)", clock.now - started)
            print("  appex \(step.arguments.first ?? "") exited with \(status).")
        }
        // A link followed in the Today view launched the Notes app: give it a moment to say so.
        for _ in 0..<200 where ran.contains("open the Today view") && !FileManager.default.fileExists(atPath: openedNoteRecord.path) {
            Thread.sleep(forTimeInterval: 0.025)
        }
        print("\n  Notes app — `notes opened`: the note a link opened, if you followed one:")
        try runInstalledApp("com.example.notes", ["opened"])
        summarize()
    }

    /// Runs this `appex` executable with `arguments` on the demo's home, in this terminal,
    /// and returns its exit status.
    private func runAppex(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(registry.home.selectingEnvironment) { $1 }
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
