import AppexCore
import AppexSamples
import AppexTesting
import Foundation
import Glibc
import Testing

/// `appex`, appexd and appex-transfers as users of pluginkit, systemctl and any Unix tool
/// expect them: typos get a suggestion and exit 2, `--help` and `--version` everywhere,
/// pluginkit's spellings, and `appex daemon` to see and manage appexd. Real processes.
@Suite final class CommandLineConventionTests {
    let test: TestHome
    let appex: CommandRunner

    init() throws {
        test = try TestHome()
        try FileManager.default.createDirectory(at: test.scratch, withIntermediateDirectories: true)
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
    }

    deinit {
        for pid in test.daemonProcessIDs() { kill(pid, SIGKILL) }
    }

    @Test func aMistypedCommandGetsASuggestionAndExitsTwo() async throws {
        let typo = try await appex.run(["lst"])
        #expect(typo.status == 2)
        #expect(typo.standardError == "appex: error: 'lst' is not an appex command; did you mean `list`? `appex --help` lists them\n", "\(typo.standardError)")
        let help = try await appex.run(["help", "nosuch"])
        #expect(help.status == 2)
        #expect(help.standardError.contains("'nosuch' is not an appex command"), "\(help.standardError)")
        #expect(help.standardOutput.isEmpty, "not the main help")
        let transposed = try await appex.run(["dameon", "status"])
        #expect(transposed.standardError.contains("did you mean `daemon`?"), "\(transposed.standardError)")
        #expect(try await appex.run(["help", "list"]).status == 0)
    }

    @Test func everyProgramHasHelpAndVersion() async throws {
        let version = try await appex.run(["--version"])
        #expect(version.status == 0 && version.standardOutput == "appex \(AppexVersion.release) (wire protocol 8)\n", "\(version.standardOutput)")
        for program in ["appexd", "appex-transfers"] {
            let runner = CommandRunner(executable: AppexBuild.products.appendingPathComponent(program), environment: test.environment)
            let help = try await runner.run(["--help"])
            #expect(help.status == 0 && help.standardOutput.contains("Usage: \(program) [--help] [--version]"), "\(program): \(help.standardOutput)")
            let version = try await runner.run(["--version"])
            #expect(version.status == 0 && version.standardOutput.hasPrefix("\(program) \(AppexVersion.release)"), "\(program): \(version.standardOutput)")
            let stray = try await runner.run(["--foreground"])
            #expect(stray.status == 2 && stray.standardError.contains("\(program): unexpected argument '--foreground'"), "\(program): \(stray.standardError)")
        }
        #expect(test.daemonProcessIDs().isEmpty, "appexd --help started no daemon")
    }

    @Test func pluginkitsSpellings() async throws {
        let notes = try #require(try await AssembledSamples.apps().first { $0.lastPathComponent == "Notes.app" })
        let added = try await appex.run(["-a", notes.path])
        #expect(added.status == 0, "\(added.standardError)")
        let matched = try await appex.run(["-m", "-p", "share"])
        #expect(matched.status == 0 && matched.standardOutput.contains("com.example.notes.share"), "\(matched.standardOutput)")
        let verbose = try await appex.run(["-mAv", "--protocol", "share"])
        let listed = try await appex.run(["list", "-v", "-p", "share"])
        #expect(verbose.status == 0 && verbose.standardOutput == listed.standardOutput)

        #expect(try await appex.run(["-e", "ignore", "-i", "com.example.notes.share"]).status == 0)
        #expect(try await appex.run(["list", "-i", "com.example.notes.share"]).standardOutput.hasPrefix("-"), "disabled")
        #expect(try await appex.run(["-e", "use", "-i", "com.example.notes.share"]).status == 0)
        #expect(try await appex.run(["list", "-i", "com.example.notes.share"]).standardOutput.hasPrefix("+"), "enabled")
        let election = try await appex.run(["-e", "maybe", "-i", "com.example.notes.share"])
        #expect(election.status == 2 && election.standardError.contains("'maybe' is not an election; pluginkit's are use, ignore and default"))

        let removed = try await appex.run(["-r", notes.path])
        #expect(removed.status == 0, "\(removed.standardError)")
        #expect(try await appex.run(["list"]).standardOutput.isEmpty)
    }

    /// With `--json`, a failure is a JSON object on stdout, never plain text on stderr:
    /// the command's own failures, the registry's, and the argument parser's usage errors.
    @Test func withJSONAnErrorIsAJSONObjectOnStandardOutput() async throws {
        let cases: [(arguments: [String], status: Int32, code: String, message: String, hint: String?)] = [
            (["list", "-p", "shre", "--json"], 2, "no-such-point", "there is no extension point shre", "did you mean `share`? `appex points` lists them"),
            (["uninstall", "com.example.nosuch", "--json"], 1, "not-installed", "no app com.example.nosuch is installed", "`appex list` shows what is installed"),
            (["info", "com.example.nosuch", "--json"], 1, "not-installed", "no app or extension com.example.nosuch is installed", "`appex list` shows what is"),
            (["list", "--bogus", "--json"], 2, "usage", "Unknown option '--bogus'", "`appex help list` shows the usage"),
            (["query", "--point", "share", "--items", "[{\"attachment\": []}]", "--json"], 2, "error",
             #"the items given inline: [0].attachment: unknown key; an item has "attributedTitle", "attributedContentText", "userInfo", "attachments""#, nil),
        ]
        for (arguments, status, code, message, hint) in cases {
            let result = try await appex.run(arguments)
            #expect(result.status == status, "\(arguments)")
            #expect(result.standardError.isEmpty, "\(arguments): \(result.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(arguments)")
            #expect(report["code"] as? String == code && report["message"] as? String == message && report["hint"] as? String == hint
                    && report["status"] as? Int == Int(status), "\(arguments): \(report)")
        }
    }

    /// On a terminal, a batch's errors are red and warnings yellow; `NO_COLOR` takes the
    /// colour away, and `TERM=dumb` every escape sequence, so nothing is asked with the keys.
    @Test func colourOnlyWhereItIsWanted() async throws {
        var broken = BundleBuilder.app("com.example.broken", in: test.scratch)
        broken.includeExecutables = false
        let app = try broken.write().path
        let executable = AppexBuild.products.appendingPathComponent("appex")
        func transcript(_ arguments: [String], term: String = "xterm-256color", noColor: Bool = false) async throws -> String {
            let terminal = try PseudoTerminal(executable, arguments, environment: test.environment, term: term, noColor: noColor)
            _ = try await terminal.waitForExit()
            return try await terminal.finalTranscript()
        }
        let coloured = try await transcript(["validate", app])
        #expect(coloured.contains("\u{1B}[31merror\u{1B}[0m: Tool.app"), "\(coloured.debugDescription)")
        let plain = try await transcript(["validate", app], noColor: true)
        #expect(plain.contains("error: Tool.app") && !plain.contains("\u{1B}["), "\(plain.debugDescription)")
        let notes = try #require(try await AssembledSamples.apps().first { $0.lastPathComponent == "Notes.app" })
        try #require(try await appex.run(["install", notes.path]).status == 0)
        let dumb = try await transcript(["action", "--text", "hi"], term: "dumb")
        #expect(dumb.contains("Without a terminal `appex action` does not ask: pass --to ID") && !dumb.contains("\u{1B}["), "\(dumb.debugDescription)")
    }

    /// An install says what it is doing on a terminal, and erases the line when done; into
    /// a pipe it says nothing of the kind.
    @Test func installShowsProgressOnATerminalOnly() async throws {
        let notes = try #require(try await AssembledSamples.apps().first { $0.lastPathComponent == "Notes.app" })
        let terminal = try PseudoTerminal(AppexBuild.products.appendingPathComponent("appex"), ["install", notes.path], environment: test.environment)
        #expect(try await terminal.waitForExit() == 0)
        let transcript = try await terminal.finalTranscript()
        for step in ["validating", "copying", "checking", "registering", "making containers"] {
            #expect(transcript.contains("Installing Notes.app: \(step)…"), "\(step): \(transcript.debugDescription)")
        }
        #expect(!terminal.screen.contains("Installing Notes.app:") && terminal.screen.contains("Installed Notes"), "the line is erased: \(terminal.screen)")
        let piped = try await appex.run(["install", notes.path])
        #expect(piped.status == 0 && !piped.standardError.contains("Installing") && !piped.standardOutput.contains("\u{1B}"), "\(piped.standardError)")
    }

    @Test func theDaemonIsSeenStartedStoppedAndRestarted() async throws {
        let stopped = try await appex.run(["daemon", "status"])
        #expect(stopped.status == 3, "systemctl's status for a unit that isn't running")
        #expect(stopped.standardOutput.contains("appexd is not running") && stopped.standardOutput.contains(test.home.daemonLogURL.path))
        #expect(test.daemonProcessIDs().isEmpty, "status never starts it")

        let started = try await appex.run(["daemon", "start"])
        #expect(started.status == 0, "\(started.standardError)")
        let pid = try #require(test.daemonProcessIDs().first)
        #expect(started.standardOutput == "appexd is running as pid \(pid)\n")

        let status = try await appex.run(["daemon", "status", "--json"])
        #expect(status.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect(report["running"] as? Bool == true && report["pid"] as? Int == Int(pid) && report["extensionProcesses"] as? Int == 0)
        #expect(report["socket"] as? String == test.home.daemonSocketURL.path)

        let restarted = try await appex.run(["daemon", "restart"])
        #expect(restarted.status == 0, "\(restarted.standardError)")
        let newPID = try #require(test.daemonProcessIDs().first)
        #expect(newPID != pid && restarted.standardOutput == "appexd (pid \(pid)) stopped\nappexd is running as pid \(newPID)\n", "\(restarted.standardOutput)")

        let stop = try await appex.run(["daemon", "stop"])
        #expect(stop.status == 0 && stop.standardOutput == "appexd (pid \(newPID)) stopped\n")
        #expect(test.daemonProcessIDs().isEmpty)
        #expect(try await appex.run(["daemon", "stop"]).standardOutput == "appexd was not running\n")
        #expect(try await appex.run(["daemon", "log"]).status == 0, "the log of the daemons that ran")
    }
}
