import AppexSamples
import AppexTesting
import Foundation
import Testing

/// `appex demo`, the project's main job: the whole story on the sample apps, in a private
/// home it removes, told without a terminal, and driven by a person with --interactive.
@Suite final class DemoTests {
    let samples: SampleHome
    /// The demo's temporary folder (TMPDIR), the test's own.
    let temporary: URL
    let environment: [String: String]
    var appex: CommandRunner { CommandRunner(executable: samples.appex.executable, environment: environment) }

    init() async throws {
        samples = try await SampleHome()
        temporary = samples.test.scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        environment = samples.test.environment.merging(["TMPDIR": temporary.path]) { $1 }
    }

    /// What the demo left in its temporary folder.
    func leftBehind() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
    }

    @Test func theDemoTellsTheWholeStoryAndLeavesNothingBehind() async throws {
        let result = try await appex.run(["demo"])
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.standardOutput
        #expect(output.contains("The Today view shows: Latest Note, System Load"), "\(output)")
        // The Notes app, run from its installed bundle, reads back what its extension shared.
        #expect(output.contains("Shared with \"Add to Notes\" (group.com.example.notes): 2 so far, the last \"Groceries: oat milk, bread, apples\""), "\(output)")
        #expect(output.contains("- [Inbox] Buy oat milk · https://www.swift.org"), "the text once, as the compose sheet posted it, in the folder picked")
        #expect(output.contains("- [Inbox] Groceries: oat milk, bread, apples · and coffee for Friday"), "the file, read whole")
        #expect(output.contains("text: HELLO FROM THE DEMO") && output.contains("  Sunset.png"), "the text and the file actions")
        #expect(output.contains("[1] Inbox Groceries: oat milk, bread, apples"), "the Today view shows the new note: \(output)")
        #expect(output.contains(/\[2\] Load \d+\.\d\d \d+\.\d\d \d+\.\d\d/), "and the live load")
        #expect(output.contains(/Opened notes:\/\/note\/Inbox-\w+ in Notes/), "\(output)")
        #expect(output.contains("com.example.notes.widget\tGroceries: oat milk, bread, apples · and coffee for Friday"), "the Notes app opened the note")
        let timings = (output.components(separatedBy: "== The story's timings").last ?? "").split(separator: "\n")
        for step in ["install 4 apps", "share a text (launches Add to Notes)", "share a file", "action on a text (cold)", "action on a 4 MiB file",
                     "Today view: launch and update 2 widgets", "follow a link until Notes opens the note"] {
            let line = timings.first { $0.hasPrefix("  \(step)  ") }
            #expect(line?.contains(/\s\d+(\.\d+)? (s|ms|µs)$/) == true, "\(step)'s time: \(timings)")
        }
        #expect(output.contains("Add to Album") && output.contains("line 2, column"), "the registry's tour")
        for identifier in ["com.example.texttools.pagecolour", "com.example.texttools.wordcount", "com.example.monitor.widget"] {
            #expect(output.contains("+ \(identifier) "), "the tour's list shows \(identifier) whole, apart from its name")
        }
        #expect(!output.contains(/\S\[\d/), "no column runs into the times after it: \(output)")
        #expect(output.contains("cores busy") && !output.contains(/\d+ % of \d+ cores/), "the load bar's label doesn't contradict its percentage")
        #expect(leftBehind().isEmpty, "the demo removes its private home")
    }

    @Test func aPersonDrivesTheStoryInATerminal() async throws {
        let terminal = try PseudoTerminal(samples.appex.executable, ["demo", "--interactive"], environment: environment)
        try await terminal.waitForScreen(containing: "Press Enter to share a text,", timeout: .seconds(60))
        terminal.send("\r")
        let list = try await terminal.waitForScreen(showing: "the list to share to") { $0.contains(/Send .+ to:/) }
        let rows = list.split(separator: "\n").drop { !$0.contains(/Send .+ to:/) }
        let notes = try #require(rows.first { $0.contains("Add to Notes") }?.split(separator: " ").first { Int($0) != nil }, "\(list)")
        terminal.send(String(notes))
        try await terminal.waitForScreen(containing: "characters left")
        terminal.send("\u{13}")
        try await terminal.waitForScreen(containing: "Press Enter to share a file,")
        terminal.send("s\r")
        try await terminal.waitForScreen(containing: "Press Enter to run an action,")
        terminal.send("s\r")
        try await terminal.waitForScreen(containing: "Press Enter to open the Today view,")
        terminal.send("\r")
        try await terminal.waitForScreen(containing: "[1] Inbox Buy oat milk")
        terminal.send("1")
        try await terminal.waitForScreen(containing: "Open it? y/n")
        terminal.send("y")
        try await terminal.waitForScreen(containing: "Opened notes://note/Inbox-")
        terminal.send("q")
        try await terminal.waitForScreen(containing: "The story's timings")
        #expect(try await terminal.waitForExit() == 0)
        // Read once the demo has exited: the heading can be on the screen before its rows.
        let end = terminal.screen
        #expect(terminal.transcript.contains("com.example.notes.widget\tBuy oat milk · https://www.swift.org"), "the Notes app opened the note")
        #expect(end.contains("share a text (with you)") && !end.contains("share a file (with you)"), "a skipped step has no time: \(end)")
        #expect(leftBehind().isEmpty, "the demo removes its private home")
    }

    @Test func drivingTheDemoNeedsATerminal() async throws {
        let result = try await appex.run(["demo", "--interactive"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("appex demo --interactive needs a terminal"), "\(result.standardError)")
    }
}
