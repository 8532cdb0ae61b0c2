import AppexCore
import AppexRegistry
import AppexSamples
import AppexTesting
import Foundation
import Glibc
import Testing

/// `appex today`, the Today view in a terminal, run as a real process against the installed
/// samples: Latest Note shows what "Add to Notes" posts, its snapshot is kept between runs,
/// and its links open the Notes app, after the user confirms.
@Suite final class TodayCommandTests {
    let samples: SampleHome
    var appex: CommandRunner { samples.appex }
    static let widget = "com.example.notes.widget"

    init() async throws {
        samples = try await SampleHome()
    }

    func share(_ text: String) async throws {
        let result = try await appex.run(["share", "--text", text, "--to", "com.example.notes.share"])
        #expect(result.status == 0, "\(result.standardError)")
    }

    /// `appex today --json ARGUMENTS…`'s widgets, and its report.
    func today(_ arguments: [String] = [], status: Int32 = 0) async throws -> (widgets: [[String: Any]], report: [String: Any]) {
        let result = try await appex.run(["today", "--json"] + arguments)
        #expect(result.status == status, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardOutput)")
        return (report["widgets"] as? [[String: Any]] ?? [], report)
    }

    /// The note the Notes app last opened through a link: NAME, URL, who asked, text.
    var openedNote: [String] {
        let file = samples.test.home.container(for: "com.example.notes").appendingPathComponent("opened.txt")
        return ((try? String(contentsOf: file, encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines).components(separatedBy: "\t")
    }

    /// The note the Notes app opened, once it has recorded it (the app is launched in the
    /// background, so the answer to the link can come first); within 10 s.
    func waitForOpenedNote() async throws -> [String] {
        var opened = openedNote
        for _ in 0..<200 where opened.count < 4 {
            try await Task.sleep(for: .milliseconds(50))
            opened = openedNote
        }
        return opened
    }

    @Test func theAddListShowsEachWidgetsNameAndDescriptionAndTheViewKeepsItsOrder() async throws {
        let empty = try samples.terminal(["today"])
        try await empty.waitForScreen(containing: "`appex today list` lists the widgets to add")
        empty.send("1")
        try await empty.waitForScreen(containing: "No widget shows a link.")
        empty.send("q")
        #expect(try await empty.waitForExit() == 0)

        let listed = try await appex.run(["today", "list"])
        #expect(listed.status == 0)
        #expect(listed.standardOutput.contains("In the Today view:\n  none"), "\(listed.standardOutput)")
        #expect(listed.standardOutput.contains("""
              Latest Note (com.example.notes.widget)
                  The note you shared last with Add to Notes, and the ones before it when expanded.
            """), "\(listed.standardOutput)")

        let unasked = try await appex.run(["today", "add"])
        #expect(unasked.status == 2)
        #expect(unasked.standardError.contains("which widget? Without a terminal nothing is asked: pass its identifier, one of:"))
        #expect(unasked.standardError.contains("com.example.notes.widget\tLatest Note: The note you shared last"), "\(unasked.standardError)")

        #expect(try await appex.run(["today", "add", Self.widget]).status == 0)
        #expect(try await appex.run(["today", "add", "com.example.monitor.widget", "--at", "1"]).status == 0)
        let twice = try await appex.run(["today", "add", Self.widget])
        #expect(twice.status == 1 && twice.standardError.contains("already in the Today view"), "\(twice.standardError)")
        let notAWidget = try await appex.run(["today", "add", "com.example.notes.share"])
        #expect(notAWidget.status == 1 && notAWidget.standardError.contains("not a Today widget"), "\(notAWidget.standardError)")

        let moved = try await appex.run(["today", "move", Self.widget, "1"])
        #expect(moved.standardOutput.contains("1. Latest Note (com.example.notes.widget), compact\n  2. System Load"), "\(moved.standardOutput)")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(try await appex.run(["today", "list", "--json"]).standardOutput.utf8)) as? [String: Any])
        #expect((listing["shown"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String } == [Self.widget, "com.example.monitor.widget"])
        #expect((listing["available"] as? [[String: Any]])?.isEmpty == true)

        #expect(try await appex.run(["today", "remove", "com.example.monitor.widget"]).status == 0)
        let gone = try await appex.run(["today", "remove", "com.example.monitor.widget"])
        #expect(gone.status == 1 && gone.standardError.contains("is not in the Today view"), "\(gone.standardError)")
    }

    @Test func theViewShowsTheSnapshotAtOnceAndReplacesItOnlyWithNewData() async throws {
        let empty = try await appex.run(["today"])
        #expect(empty.standardOutput.contains("No widgets in the Today view."), "\(empty.standardOutput)")
        #expect(try await appex.run(["today", "add", Self.widget]).status == 0)
        try await share("Buy oat milk")

        let first = try #require(try await today().widgets.first)
        #expect(first["source"] as? String == "live" && first["update"] as? String == "newData", "\(first)")
        #expect((first["lines"] as? [String])?.contains { $0.contains("[1] Inbox Buy oat milk") } == true, "\(first)")

        let again = try #require(try await today().widgets.first)
        #expect(again["source"] as? String == "snapshot" && again["update"] as? String == "noData" && again["stale"] as? Bool == false, "\(again)")
        #expect(again["time"] as? String == first["time"] as? String, "the snapshot is the first run's")
        let plain = try await appex.run(["today"])
        #expect(plain.standardOutput.contains("Latest Note") && plain.standardOutput.contains("compact · snapshot of "), "\(plain.standardOutput)")

        try await share("Call the bakery")
        let updated = try #require(try await today().widgets.first)
        #expect(updated["source"] as? String == "live" && updated["update"] as? String == "newData", "\(updated)")
        #expect((updated["lines"] as? [String])?.contains { $0.contains("Call the bakery") } == true, "\(updated)")
    }

    /// `notes clear` (the app) hides Latest Note with NCWidgetController; "Add to Notes" (an
    /// extension of the same app) shows it again once it files a note.
    @Test func clearingTheSharedNotesHidesTheWidgetUntilANoteIsSharedAgain() async throws {
        #expect(try await appex.run(["today", "add", Self.widget]).status == 0)
        try await share("Buy oat milk")
        #expect(try await today().widgets.count == 1)
        let notesApp = try #require(try Registry(home: samples.test.home).app("com.example.notes")).executableURL
        let cleared = try await CommandRunner(executable: notesApp, environment: samples.test.environment).run(["clear"])
        #expect(cleared.status == 0, "\(cleared.standardError)")
        #expect(cleared.standardOutput.contains("Deleted 1 shared notes. The Latest Note widget is hidden"), "\(cleared.standardOutput)")
        #expect(try await today().widgets.isEmpty)
        #expect(try await appex.run(["today", "list"]).standardOutput.contains("hidden: it has no content now"))

        try await share("Call the bakery")
        let shown = try #require(try await today().widgets.first)
        #expect((shown["lines"] as? [String])?.contains { $0.contains("Call the bakery") } == true, "\(shown)")
        #expect((shown["lines"] as? [String])?.contains { $0.contains("Buy oat milk") } == false, "\(shown)")
    }

    @Test func followingALinkLaunchesTheNotesAppWithItsURL() async throws {
        #expect(try await appex.run(["today", "add", Self.widget]).status == 0)
        try await share("Buy oat milk")
        let (widgets, report) = try await today(["--open", "1"])
        let url = try #require((widgets.first?["links"] as? [String])?.first)
        #expect(url.hasPrefix("notes://note/Inbox-"))
        let link = try #require(report["link"] as? [String: Any])
        #expect(link["opened"] as? Bool == true && link["app"] as? String == "Notes" && link["url"] as? String == url, "\(link)")
        let opened = try await waitForOpenedNote()
        #expect(opened == [String(url.dropFirst("notes://note/".count)), url, Self.widget, "Buy oat milk"], "the Notes app opened the note")

        let missing = try await appex.run(["today", "--open", "5"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("there is no link [5]: the links are [1] to [1]"), "\(missing.standardError)")
    }

    @Test func aPersonExpandsTheWidgetAndOpensALinkAfterConfirming() async throws {
        #expect(try await appex.run(["today", "add", Self.widget]).status == 0)
        try await share("Buy oat milk")
        try await share("Call the bakery")
        let terminal = try samples.terminal(["today"])
        let shown = try await terminal.waitForScreen(containing: "[1] Inbox Call the bakery")
        #expect(shown.contains("▸ Latest Note") && shown.contains("compact"), "\(shown)")
        #expect(!shown.contains("Buy oat milk"), "compact shows the latest note only")

        terminal.send(PseudoTerminal.Keys.enter)
        let expanded = try await terminal.waitForScreen(containing: "[2] Inbox Buy oat milk")
        #expect(expanded.contains("expanded"), "\(expanded)")

        terminal.send("2")
        let question = try await terminal.waitForScreen(containing: "Open it? y/n")
        #expect(question.contains("Latest Note asks to open notes://note/Inbox-") && question.contains("in Notes"), "\(question)")
        terminal.send("n")
        try await terminal.waitForScreen(containing: "was not opened")
        #expect(openedNote == [""], "nothing opened without the user's yes")

        terminal.send("2")
        try await terminal.waitForScreen(containing: "Open it? y/n")
        terminal.send("y")
        try await terminal.waitForScreen(containing: "Opened notes://note/Inbox-")
        terminal.send("q")
        #expect(try await terminal.waitForExit() == 0)
        let opened = try await waitForOpenedNote()
        #expect(opened.last == "Buy oat milk", "the second link is the older note: \(opened)")
        #expect(try await appex.run(["today", "list"]).standardOutput.contains("1. Latest Note (com.example.notes.widget), expanded"), "the mode is kept")
    }

    @Test func watchingWithoutATerminalPrintsTheViewAgainWhenANoteArrives() async throws {
        #expect(try await appex.run(["today", "add", Self.widget]).status == 0)
        try await share("Buy oat milk")
        let process = Process()
        process.executableURL = appex.executable
        process.arguments = ["today", "--watch", "--interval", "1"]
        process.environment = appex.environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var printed = ""
        func waitFor(_ text: String) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while !printed.contains(text), ContinuousClock.now < deadline {
                var descriptor = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 0) == 1 else {
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                }
                printed += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            }
            #expect(printed.contains(text), "\(printed)")
        }
        try await waitFor("Buy oat milk")
        try await share("Call the bakery")
        try await waitFor("Call the bakery")
        kill(process.processIdentifier, SIGINT)
        #expect(await process.exited() == 0)
        #expect(!printed.contains("updating…"), "a frame is printed once the widgets have answered")
    }
}
