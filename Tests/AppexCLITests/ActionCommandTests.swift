import AppexSamples
import AppexTesting
import Foundation
import Glibc
import Testing

/// `appex action`, the terminal host of Action extensions, run as a real process against the
/// installed samples: Text Tools' Word Count and Checksum run in their own sandboxed
/// processes, and the list is driven with keys on a pseudo-terminal.
@Suite final class ActionCommandTests {
    let samples: SampleHome
    var appex: CommandRunner { samples.appex }
    static let wordCount = "com.example.texttools.wordcount"
    static let checksum = "com.example.texttools.checksum"

    init() async throws {
        samples = try await SampleHome()
    }

    func file(_ name: String, _ contents: String) throws -> String {
        let url = samples.test.scratch.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    /// What `sha256sum` says of `path`: the independent check of Checksum's answer.
    func sha256sum(_ path: String) async throws -> String {
        let result = try await CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/sha256sum"), environment: [:]).run([path])
        return String(result.standardOutput.prefix(64))
    }

    @Test func aTextActionReplacesTheTextWithWhatItReturns() async throws {
        let result = try await appex.run(["action", "--text", "the quick brown fox\njumps", "--to", Self.wordCount])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "5 words, 25 characters, 2 lines\n")
    }

    @Test func aFileActionReadsTheFileThroughItsDescriptorAndTheResultGoesToOutput() async throws {
        let path = try file("report.txt", String(repeating: "all work and no play\n", count: 50_000))
        let printed = try await appex.run(["action", path, "--to", Self.checksum])
        #expect(printed.status == 0, "\(printed.standardError)")
        #expect(printed.standardOutput == "\(try await sha256sum(path))  report.txt\n")

        let output = samples.test.scratch.appendingPathComponent("report.sha256").path
        let written = try await appex.run(["action", path, "--to", Self.checksum, "--output", output])
        #expect(written.status == 0, "\(written.standardError)")
        #expect(written.standardOutput.isEmpty)
        #expect(written.standardError.contains("wrote \(output)"))
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "\(try await sha256sum(path))  report.txt\n")
    }

    @Test func oneResultIsWrittenAtOutputAndSeveralIntoAFolderThere() async throws {
        let first = try file("a.txt", "alpha\n")
        let second = try file("b.txt", "beta\n")
        let sums = samples.test.scratch.appendingPathComponent("sums")
        let one = try await appex.run(["action", first, second, "--to", Self.checksum, "--output", sums.path, "--json"])
        #expect(one.status == 0, "\(one.standardError)")
        #expect(try String(contentsOf: sums, encoding: .utf8) == "\(try await sha256sum(first))  a.txt\n\(try await sha256sum(second))  b.txt\n")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(one.standardOutput.utf8)) as? [String: Any])
        #expect(report["outcome"] as? String == "completed")
        #expect(report["extensionIdentifier"] as? String == Self.checksum)
        #expect(report["output"] as? String == sums.path)

        // Make Uppercase returns each text attachment: the text's and the file's.
        let folder = samples.test.scratch.appendingPathComponent("upper")
        let several = try await appex.run(["action", first, "--text", "gamma", "--to", "com.example.notes.uppercase", "--output", folder.path])
        #expect(several.status == 0, "\(several.standardError)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["text-1.txt", "text-2.txt"])
        let texts = try names.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
        #expect(texts == ["GAMMA", "ALPHA\n"])
    }

    @Test func withoutATerminalItNeverAsksAndSaysWhichFlagToPass() async throws {
        let result = try await appex.run(["action", "--text", "hello"])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains("pass --to ID, one of:"), "\(result.standardError)")
        #expect(result.standardError.contains("\(Self.wordCount)\tWord Count"))
    }

    @Test func contentNoActionAcceptsAndAnActionThatDoesNotAcceptItAreRefused() async throws {
        let nothing = try await appex.run(["action", "--url", "https://swift.org", "--to", Self.wordCount])
        #expect(nothing.status == 1)
        #expect(nothing.standardError.contains("Word Count (\(Self.wordCount))'s activation rule does not accept a URL"), "\(nothing.standardError)")
        let wrong = try await appex.run(["action", "--text", "hi", "--to", "com.example.notes.share"])
        #expect(wrong.status == 1)
        #expect(wrong.standardError.contains("(com.example.notes.share) is a Share extension"), "\(wrong.standardError)")
        let empty = try await appex.run(["action"])
        #expect(empty.status == 2)
        #expect(empty.standardError.contains("Give something to send"))
    }

    @Test func aPersonPicksTheActionWithTheArrowKeysOnATerminal() async throws {
        let terminal = try samples.terminal(["action", "--text", "one two three"])
        let list = try await terminal.waitForScreen(containing: "Send a text to:")
        #expect(list.contains("Make Uppercase"))
        #expect(list.contains("Word Count"))
        let rows = list.split(separator: "\n").map(String.init)
        let wordCountRow = try #require(rows.firstIndex { $0.contains("Word Count") })
        let selectedRow = try #require(rows.firstIndex { $0.hasPrefix("›") })
        let presses = wordCountRow - selectedRow
        try #require(presses >= 0)
        terminal.send(String(repeating: PseudoTerminal.Keys.down, count: presses))
        try await terminal.waitForScreen(containing: "› \(rows[wordCountRow].dropFirst(2))")
        terminal.send(PseudoTerminal.Keys.enter)
        try await terminal.waitForScreen(containing: "3 words, 13 characters, 1 line")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func theListOffersWhatThisUserPickedRecentlyFirst() async throws {
        #expect(try await appex.run(["action", "--text", "x", "--to", Self.wordCount]).status == 0)
        let terminal = try samples.terminal(["action", "--text", "a b"])
        let rows = try await terminal.waitForScreen(containing: "Send a text to:").split(separator: "\n").map(String.init)
        #expect(rows[1].hasPrefix("› 1  Word Count"), "\(rows)")
        #expect(rows[1].hasSuffix("(recent)"), "\(rows)")
        terminal.send(PseudoTerminal.Keys.enter)
        try await terminal.waitForScreen(containing: "2 words, 3 characters, 1 line")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func aPersonPicksByNumberOrCancelsWithQ() async throws {
        let picked = try samples.terminal(["action", "--text", "abc"])
        let rows = try await picked.waitForScreen(containing: "Send a text to:").split(separator: "\n")
        let number = try #require(rows.first { $0.contains("Make Uppercase") }?.split(separator: " ").first { Int($0) != nil })
        picked.send(String(number))
        try await picked.waitForScreen(containing: "ABC")
        #expect(try await picked.waitForExit() == 0)

        let cancelled = try samples.terminal(["action", "--text", "abc"])
        try await cancelled.waitForScreen(containing: "Send a text to:")
        cancelled.send("q")
        try await cancelled.waitForScreen(containing: "cancelled; nothing was sent")
        #expect(try await cancelled.waitForExit() == 1)
    }
}
