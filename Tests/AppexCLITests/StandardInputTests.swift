import AppexTesting
import Foundation
import Testing

/// `-` means standard input wherever `appex` takes a file or a text, as for every Unix tool;
/// `--items` takes JSON inline as well as a file. Run as real processes against the
/// installed samples.
@Suite final class StandardInputTests {
    let samples: SampleHome
    var appex: CommandRunner { samples.appex }

    init() async throws {
        samples = try await SampleHome()
    }

    /// What `sha256sum` says of `data`: the independent check of Checksum's answer.
    func sha256(_ data: Data) async throws -> String {
        let result = try await CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/sha256sum"), environment: [:]).run([], input: data)
        return String(result.standardOutput.prefix(64))
    }

    @Test func textFromStandardInput() async throws {
        let result = try await appex.run(["action", "--text", "-", "--to", ActionCommandTests.wordCount], input: Data("the quick brown fox\njumps\n".utf8))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "5 words, 25 characters, 2 lines\n", "the text, less the line break echo ends it with; not a literal -")
    }

    @Test func aFileFromAPipeIsSentAsAFile() async throws {
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let result = try await appex.run(["action", "-", "--to", ActionCommandTests.checksum], input: bytes)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix(try await sha256(bytes)), "\(result.standardOutput)")
    }

    @Test func aFileRedirectedToStandardInputIsThatFile() async throws {
        let path = samples.test.scratch.appendingPathComponent("notes.txt")
        try Data("dear diary\n".utf8).write(to: path)
        let shell = CommandRunner(executable: URL(fileURLWithPath: "/bin/sh"), environment: samples.test.environment)
        let result = try await shell.run(["-c", "exec \"$0\" action - --to \(ActionCommandTests.checksum) < \"$1\"", appex.executable.path, path.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "\(try await sha256(Data("dear diary\n".utf8)))  notes.txt\n", "handed over as the file, named as it")
    }

    @Test func standardInputIsTakenOnce() async throws {
        let result = try await appex.run(["action", "--text", "-", "-", "--to", ActionCommandTests.wordCount], input: Data("hi".utf8))
        #expect(result.status == 2)
        #expect(result.standardError.contains("Standard input can be read once"), "\(result.standardError)")
    }

    @Test func itemsInlineFromStandardInputOrAFile() async throws {
        let items = #"[{"attributedContentText": "hi"}]"#
        let inline = try await appex.run(["match", "--rule-string", "extensionItems.@count == 1", "--items", items])
        #expect(inline.status == 0 && inline.standardOutput == "match\n", "\(inline.standardError)")
        let piped = try await appex.run(["match", "--rule-string", "extensionItems.@count == 1", "--items", "-"], input: Data(items.utf8))
        #expect(piped.status == 0 && piped.standardOutput == "match\n", "\(piped.standardError)")
        let query = try await appex.run(["query", "--point", "action", "--items", items])
        #expect(query.status == 0 && query.standardOutput.contains(ActionCommandTests.wordCount), "\(query.standardError)")
        let rule = try await appex.run(["match", "--rule", "-", "--items", items], input: Data("extensionItems.@count == 1".utf8))
        #expect(rule.status == 0 && rule.standardOutput == "match\n", "\(rule.standardError)")
    }

    @Test func itemsOfTheWrongShapeSayWhatIsWrong() async throws {
        let cases: [(items: String, says: String)] = [
            (#"{"attachments": []}"#, "the items given inline: the top level: this is one item, not an array of items: put it in brackets, [{…}]"),
            (#"[{"attachment": []}]"#, #"[0].attachment: unknown key; an item has "attributedTitle", "attributedContentText", "userInfo", "attachments""#),
            (#"[{"attachments": [{"registeredTypeIdentifier": []}]}]"#, #"[0].attachments[0].registeredTypeIdentifier: unknown key"#),
            ("[{", "the items given inline:"),
        ]
        for (items, says) in cases {
            let result = try await appex.run(["query", "--point", "share", "--items", items])
            #expect(result.status == 2, "\(items)")
            #expect(result.standardError.contains(says), "\(items): \(result.standardError)")
        }
        let missing = try await appex.run(["match", "--rule-string", "TRUEPREDICATE", "--items", "nowhere.json"])
        #expect(missing.status == 2)
        #expect(missing.standardError == "appex: error: can't read the items file nowhere.json: No such file or directory\n", "in the system's words, not Foundation's")
    }
}
