import AppexCore
import AppexHost
import AppexItems
import AppexTesting
import Foundation
import Testing

/// `appex log`: an extension's output and appexd's lines about it, from appexd's log, and
/// nothing of another extension whose identifier begins the same way.
@Suite(.timeLimit(.minutes(2))) final class LogCommandTests {
    let world: FaultWorld

    init() throws {
        world = try FaultWorld()
    }

    @Test func anExtensionsLinesAreItsOutputAndAppexdsLinesNamingIt() async throws {
        try await world.startDaemon()
        // `returnsAStringAmongItems` writes a line of its own about the string it returned;
        // `crashInRequest` aborts, and appexd says so; `echo` must not be shown with either.
        try await world.install("returnsAStringAmongItems", "crashInRequest", "echo")
        let talking = FaultWorld.identifier("returnsAStringAmongItems")
        let crashing = FaultWorld.identifier("crashInRequest")
        _ = try await world.extension("returnsAStringAmongItems").outcome([textItem("hello")])
        let crashed = try await world.extension("crashInRequest").outcome([textItem("boom")])
        #expect(crashed.interruption != nil, "\(crashed)")
        _ = try await world.extension("echo").outcome([textItem("quiet")])
        // Each process's output reaches the log on a thread of its own: wait for both lines.
        #expect(await eventually { self.world.daemonLog.contains("crashed") && self.world.daemonLog.contains("which is not an NSExtensionItem") },
                "\(self.world.daemonLog)")

        let own = try await world.appex.run(["log", talking])
        #expect(own.status == 0, "\(own.standardError)")
        #expect(own.standardOutput.split(separator: "\n").contains { $0.hasPrefix("\(talking)[") && $0.contains("which is not an NSExtensionItem") },
                "the line the extension wrote: \(own.standardOutput)")
        #expect(!own.standardOutput.contains(crashing) && !own.standardOutput.contains(FaultWorld.identifier("echo")))

        let crash = try await world.appex.run(["log", crashing])
        let lines = crash.standardOutput.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("appexd:") && $0.contains("(\(crashing)) crashed: ") }, "appexd's line about it: \(crash.standardOutput)")
        #expect(lines.allSatisfy { $0.hasPrefix("\(crashing)[") || $0.hasPrefix("appexd:") }, "\(crash.standardOutput)")

        let everything = try await world.appex.run(["log"])
        #expect(everything.standardOutput.contains(talking) && everything.standardOutput.contains(crashing))
    }

    /// What an extension writes can't add a line that passes for appexd's, nor drive the
    /// terminal of whoever reads the log.
    @Test func controlCharactersAnExtensionWritesAreWrittenOut() async throws {
        try await world.startDaemon()
        try await world.install("writesControlCharacters")
        let writer = FaultWorld.identifier("writesControlCharacters")
        _ = try await world.extension("writesControlCharacters").outcome([textItem("hello")])
        #expect(await eventually { self.world.daemonLog.contains("forged") }, "\(self.world.daemonLog)")
        let logged = world.daemonLog.split(separator: "\n").filter { $0.contains("forged") }
        #expect(logged.count == 1 && logged[0].hasPrefix("\(writer)["), "one line, the extension's: \(logged)")
        #expect(!world.daemonLog.contains("\u{1B}") && !world.daemonLog.contains("\r"), "no escape or carriage return reaches the file")
        #expect(logged.first?.contains("plain \\u{1B}[31mred\\u{1B}[0m\\rappexd: ") == true, "\(logged)")

        let shown = try await world.appex.run(["log", writer])
        #expect(!shown.standardOutput.contains("\u{1B}") && shown.standardOutput.contains("\\rappexd: "), "\(shown.standardOutput)")
        let echo = try await world.appex.run(["log", FaultWorld.identifier("echo")])
        #expect(!echo.standardOutput.contains("forged"), "the forged line is the writer's, not echo's: \(echo.standardOutput)")
    }

    @Test func withoutALogItSaysWhereItLookedAndWhy() async throws {
        let shown = try await world.appex.run(["log"])
        #expect(shown.status == 1)
        #expect(shown.standardError.contains("appexd has written no log yet at \(world.test.home.daemonLogURL.path)"), "\(shown.standardError)")
    }
}
