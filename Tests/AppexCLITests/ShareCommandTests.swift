import AppexCore
import AppexSamples
import AppexTesting
import Foundation
import Glibc
import Testing

/// `appex share`, the share sheet in a terminal, run as a real process against the installed
/// samples: "Add to Notes" draws its compose sheet through the host, which a person drives
/// with keys on a pseudo-terminal; its posts land in the Notes app group.
@Suite final class ShareCommandTests {
    let samples: SampleHome
    var appex: CommandRunner { samples.appex }
    static let notes = "com.example.notes.share"

    init() async throws {
        samples = try await SampleHome()
    }

    /// The notes "Add to Notes" saved in the group, by file name.
    func sharedNotes() throws -> [String: String] {
        let folder = samples.test.home.dataDirectory.appendingPathComponent("Groups/group.com.example.notes/Shared Notes")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) })
    }

    func share(_ arguments: [String]) throws -> PseudoTerminal {
        try samples.terminal(["share"] + arguments)
    }

    @Test func withoutATerminalItPostsTheContentAsItIs() async throws {
        let result = try await appex.run(["share", "--text", "Buy oat milk", "--url", "https://www.swift.org", "--to", Self.notes, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(report["outcome"] as? String == "posted")
        #expect(report["text"] as? String == "Buy oat milk")
        #expect((report["configuration"] as? [[String: String]]) == [["title": "Folder", "value": "Inbox"]])
        #expect((report["returned"] as? [String])?.first?.hasPrefix("Saved to Inbox in group.com.example.notes") == true, "\(report)")
        let notes = try sharedNotes()
        #expect(notes.count == 1 && notes.keys.first?.hasPrefix("Inbox-") == true)
        #expect(notes.values.first == "Buy oat milk\nhttps://www.swift.org")
    }

    /// A text file is filed whole after the sheet's text; the sheet's text starts empty, as
    /// Apple's does for a file, and may stay so.
    @Test func aTextFileIsFiledAfterTheTextAndMayBeSharedAlone() async throws {
        let file = samples.test.scratch.appendingPathComponent("Groceries.txt")
        try "Oat milk\nBread\n".write(to: file, atomically: true, encoding: .utf8)
        let alone = try await appex.run(["share", file.path, "--to", Self.notes, "--json"])
        #expect(alone.status == 0, "\(alone.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(alone.standardOutput.utf8)) as? [String: Any])
        #expect(report["outcome"] as? String == "posted" && report["text"] as? String == "", "\(report)")
        #expect(Array(try sharedNotes().values) == ["Oat milk\nBread"])

        let refused = try await appex.run(["share", "--text", " ", "--to", Self.notes])
        #expect(refused.status == 1 && refused.standardError.contains("can't be posted as it is"), "no text and no file: \(refused.standardError)")

        let both = try await appex.run(["share", file.path, "--text", "For Friday", "--to", Self.notes])
        #expect(both.status == 0, "\(both.standardError)")
        #expect(Set(try sharedNotes().values) == ["Oat milk\nBread", "For Friday\nOat milk\nBread"])
    }

    @Test func withoutATerminalItNeverAsksAndSaysWhatToPass() async throws {
        let result = try await appex.run(["share", "--text", "hello"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("Without a terminal `appex share` does not ask: pass --to ID, one of:"), "\(result.standardError)")
        #expect(result.standardError.contains(Self.notes) && result.standardError.contains("com.example.texttools.wordcount"),
                "the Share and the Action extensions are both offered: \(result.standardError)")
    }

    @Test func contentTheExtensionRefusesIsNotPosted() async throws {
        let result = try await appex.run(["share", "--text", String(repeating: "a", count: 501), "--to", Self.notes])
        #expect(result.status == 1)
        #expect(result.standardError.contains("Add to Notes says the content can't be posted as it is"), "\(result.standardError)")
        #expect(try sharedNotes().isEmpty)
    }

    @Test func aPersonEditsTheTextPicksAFolderAndPosts() async throws {
        let terminal = try share(["--text", "Lunch", "--to", Self.notes])
        let sheet = try await terminal.waitForScreen(containing: "495 characters left")
        #expect(sheet.contains("Add to Notes") && sheet.contains("Lunch") && sheet.contains("Folder  Inbox ›"), "\(sheet)")
        terminal.send(" at noon")
        try await terminal.waitForScreen(containing: "487 characters left")
        try await terminal.waitForScreen(containing: "Lunch at noon")
        terminal.send(PseudoTerminal.Keys.tab + PseudoTerminal.Keys.enter)
        let list = try await terminal.waitForScreen(containing: "1 Inbox ✓")
        #expect(list.contains("2 Ideas") && list.contains("3 Work"), "\(list)")
        terminal.send("2")
        try await terminal.waitForScreen(containing: "Folder  Ideas ›")
        terminal.send("\u{13}") // Ctrl-S
        // What the extension returned is printed after "Posted", in a write of its own: wait for it.
        let posted = try await terminal.waitForScreen(containing: "Saved to Ideas in group.com.example.notes")
        #expect(posted.contains("Posted to Add to Notes."), "\(posted)")
        #expect(try await terminal.waitForExit() == 0)
        let notes = try sharedNotes()
        #expect(notes.count == 1 && notes.keys.first?.hasPrefix("Ideas-") == true && notes.values.first == "Lunch at noon", "\(notes)")
    }

    @Test func postStaysOffWhileTheTextIsOverTheLimit() async throws {
        let terminal = try share(["--text", String(repeating: "a", count: 499), "--to", Self.notes])
        try await terminal.waitForScreen(containing: "1 characters left")
        terminal.send("bcd")
        try await terminal.waitForScreen(containing: "2 characters over the limit")
        terminal.send("\u{13}")
        try await terminal.waitForScreen(containing: "Add to Notes says this can't be posted as it is.")
        terminal.send(String(repeating: PseudoTerminal.Keys.backspace, count: 3))
        try await terminal.waitForScreen(containing: "1 characters left")
        terminal.send("\u{13}")
        try await terminal.waitForScreen(containing: "Posted to Add to Notes.")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try sharedNotes().values.first == String(repeating: "a", count: 499))
    }

    @Test func escapeCancelsAndNothingIsPosted() async throws {
        let terminal = try share(["--text", "Never mind", "--to", Self.notes])
        try await terminal.waitForScreen(containing: "Folder  Inbox ›")
        terminal.send(PseudoTerminal.Keys.escape)
        try await terminal.waitForScreen(containing: "cancelled; nothing was posted")
        #expect(try await terminal.waitForExit() == 1)
        #expect(try sharedNotes().isEmpty)
    }

    @Test func theListOffersShareAndActionExtensionsAndRunsAnActionAsAppexActionDoes() async throws {
        let terminal = try share(["--text", "one two three"])
        let rows = try await terminal.waitForScreen(containing: "Send a text to:").split(separator: "\n").map(String.init)
        #expect(rows.contains { $0.contains("Add to Notes") } && rows.contains { $0.contains("Make Uppercase") }, "\(rows)")
        let wordCount = try #require(rows.first { $0.contains("Word Count") }?.split(separator: " ").first { Int($0) != nil })
        terminal.send(String(wordCount))
        try await terminal.waitForScreen(containing: "3 words, 13 characters, 1 line")
        #expect(try await terminal.waitForExit() == 0)
    }
}
