import AppexSamples
import AppexTesting
import Foundation
import Testing

/// Shell completion as a user gets it: bash, with the script `appex` generates sourced as
/// the README says, completes installed identifiers, points and widgets from the registry.
@Suite final class CompletionTests {
    let samples: SampleHome

    init() async throws {
        samples = try await SampleHome()
    }

    /// What bash offers for the last word of `line`, through the generated script's function.
    func complete(_ line: String) async throws -> [String] {
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let script = """
            source <("$APPEX" --generate-completion-script bash)
            COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " ")))
            COMP_CWORD=\(words.count - 1)
            COMP_LINE='\(line)'
            COMP_POINT=${#COMP_LINE}
            _appex appex '\(words.last!)' '\(words[words.count - 2])' 2>/dev/null
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        // As installed: `appex` on the PATH, where the script calls it back.
        var environment = samples.test.environment
        environment["APPEX"] = samples.appex.executable.path
        environment["PATH"] = samples.appex.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let bash = CommandRunner(executable: URL(fileURLWithPath: "/bin/bash"), environment: environment)
        let result = try await bash.run(["-c", script])
        return result.standardOutput.split(separator: "\n").map(String.init).filter { !$0.isEmpty }.sorted()
    }

    @Test func bashCompletesWhatIsInstalled() async throws {
        #expect(try await complete("appex disable com.example.notes.") == ["com.example.notes.share", "com.example.notes.uppercase", "com.example.notes.widget"])
        #expect(try await complete("appex uninstall com.example.t") == ["com.example.texttools"])
        #expect(try await complete("appex today remove com.example.m") == ["com.example.monitor.widget"])
        #expect(try await complete("appex list -p sh") == ["share"])
        #expect(try await complete("appex action --to com.example.texttools.w") == ["com.example.texttools.wordcount"])
    }
}
