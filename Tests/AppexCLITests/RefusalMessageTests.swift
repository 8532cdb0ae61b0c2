import AppexTesting
import Foundation
import Testing

/// When `appex` can't do what was asked, it says what really stands in the way and what to
/// do: an extension not installed (with the one probably meant), of another point, disabled,
/// or refused by its rule; a point that doesn't exist; a host that can't talk with a widget.
@Suite final class RefusalMessageTests {
    let samples: SampleHome
    var appex: CommandRunner { samples.appex }

    init() async throws {
        samples = try await SampleHome()
    }

    @Test func anExtensionNamedWithToThatIsNotInstalled() async throws {
        let unknown = try await appex.run(["action", "--text", "hi", "--to", "com.example.nosuch"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError == "appex: no extension com.example.nosuch is installed; `appex list` shows what is\n", "\(unknown.standardError)")
        let typo = try await appex.run(["action", "--text", "hi", "--to", "com.example.texttools.wordcont"])
        #expect(typo.standardError.contains("no extension com.example.texttools.wordcont is installed; did you mean `com.example.texttools.wordcount`?"),
                "\(typo.standardError)")
    }

    @Test func anExtensionOfAnotherPointOrDisabled() async throws {
        let share = try await appex.run(["action", "--text", "hi", "--to", "com.example.notes.share"])
        #expect(share.status == 1)
        #expect(share.standardError.contains("(com.example.notes.share) is a Share extension; `appex action` sends to Action extensions. `appex share --to com.example.notes.share` sends to it."),
                "\(share.standardError)")
        try #require(try await appex.run(["disable", ActionCommandTests.wordCount]).status == 0)
        let disabled = try await appex.run(["action", "--text", "hi", "--to", ActionCommandTests.wordCount])
        #expect(disabled.standardError.contains("(com.example.texttools.wordcount) is disabled; `appex enable com.example.texttools.wordcount` turns it on"),
                "\(disabled.standardError)")
    }

    @Test func contentNoRuleAcceptsIsSaidToBeTheRulesDoing() async throws {
        let refused = try await appex.run(["action", "--url", "https://example.com/", "--to", ActionCommandTests.wordCount])
        #expect(refused.standardError.contains("(com.example.texttools.wordcount)'s activation rule does not accept a URL"), "\(refused.standardError)")
        let none = try await appex.run(["action", "--url", "https://example.com/"])
        #expect(none.status == 1)
        #expect(none.standardError.contains("the activation rules of the 4 enabled Action extensions refuse a URL"), "\(none.standardError)")
        #expect(!none.standardError.contains("appex enable"), "they are enabled already")
    }

    @Test func aPointThatDoesNotExistIsAUsageError() async throws {
        let listed = try await appex.run(["list", "-p", "nosuch"])
        #expect(listed.status == 2)
        #expect(listed.standardError == "appex: error: there is no extension point nosuch; `appex points` lists them\n", "\(listed.standardError)")
        let queried = try await appex.run(["query", "--point", "shre", "--items", "[]"])
        #expect(queried.status == 2)
        #expect(queried.standardError.contains("there is no extension point shre; did you mean `share`? `appex points` lists them"), "\(queried.standardError)")
    }

    /// A file that can't be written is said in the system's words, not Foundation's "The
    /// operation could not be completed".
    @Test func fileErrorsAreInTheSystemsWords() async throws {
        let result = try await appex.run(["action", "--text", "hi", "--to", "com.example.notes.uppercase", "--output", "/proc/appex-nowhere/out.txt"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("can't write the result to /proc/appex-nowhere/out.txt: No such file or directory"), "\(result.standardError)")
        #expect(!result.standardError.contains("could not be completed"))
    }

    @Test func runningAWidgetPointsToTheToday() async throws {
        let result = try await appex.run(["run", "com.example.monitor.widget", "--text", "hi", "--timeout", "30"])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("`appex today`") && !result.standardOutput.contains("appex share"), "\(result.standardOutput)")
    }
}
