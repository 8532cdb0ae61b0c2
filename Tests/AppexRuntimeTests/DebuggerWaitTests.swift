import AppexCore
import AppexHost
import AppexItems
import AppexRegistry
import AppexSamples
import AppexSystem
import AppexTesting
import Foundation
import Testing

/// `appex run ID --wait-for-debugger` and `appex debug ID`: appexd starts the extension
/// waiting before its principal class is made, says which pid to attach to, holds its
/// deadlines, and lets it go on once a real debugger (gdb) has attached and continued it.
@Suite(.timeLimit(.minutes(2)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb"), "needs gdb, which .ci/run installs"))
final class DebuggerWaitTests {
    static let gdb = "/usr/bin/gdb"
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
        try await world.install([FaultWorld.Plugin(fault: "port", principalClass: "AppexApplePortAction.ActionRequestHandler",
                                                   executable: AppexBuild.products.appendingPathComponent("AppexApplePortAction"))])
    }

    var identifier: String { FaultWorld.identifier("port") }

    /// Attaches gdb to `pid` and continues it, as a person at a debugger would; gdb is given
    /// no init files, no debuginfod and no worker threads, and at most a minute (coreutils'
    /// `timeout`), so that it can't hang the suite.
    func attachAndContinue(_ pid: Int32) async throws -> CommandRunner.Result {
        try await CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/timeout"), environment: [:]).run([
            "60", Self.gdb, "-nx", "-iex", "set debuginfod enabled off", "-iex", "maint set worker-threads 0",
            "-p", "\(pid)", "-batch", "-ex", "continue",
        ])
    }

    /// The pid appexd's log says to attach to, once it says it.
    func pidToAttachTo() async -> Int32? {
        var pid: Int32?
        _ = await eventually(seconds: 30) {
            pid = self.world.daemonLog.split(separator: "\n").last { $0.contains("waits for a debugger") }
                .flatMap { $0.firstMatch(of: /lldb -p (\d+)/) }.flatMap { Int32($0.1) }
            return pid != nil
        }
        return pid
    }

    @Test func theNextLaunchWaitsPastItsDeadlinesUntilADebuggerAttachesAndContinuesIt() async throws {
        let registry = try Registry(home: world.test.home)
        try registry.setDebuggerWait(.once, extension: identifier)
        let action = try await world.extension("port")
        let request = Task { try await action.request(withInputItems: [NSExtensionItem()]) }

        let pid = try #require(await pidToAttachTo(), "appexd said which pid to attach to: \(world.daemonLog)")
        #expect(try registry.extension(identifier)?.debuggerWait == nil, "a wait for the next launch is taken by it")
        // Past the Action point's launch deadline (1 s), it still waits, unended.
        try await Task.sleep(for: .seconds(2))
        #expect(!ProcessTree.hasExited(pid))
        #expect(!world.daemonLog.contains("missed its launch deadline"), "\(world.daemonLog)")

        let debugger = try await attachAndContinue(pid)
        #expect(debugger.standardError.contains("ptrace") == false, "gdb attached: \(debugger.standardError)")
        let outcome = try await request.value
        #expect(outcome.items != nil, "once continued, it served the request: \(outcome)")
        #expect(world.daemonLog.contains("a debugger (pid"), "\(world.daemonLog)")

        // The next launch is as usual.
        let again = try await world.extension("port").outcome([NSExtensionItem()], within: 10)
        #expect(again.items != nil)
    }

    @Test func appexDebugWaitsAtEachLaunchUntilTurnedOff() async throws {
        #expect(try await world.appex.run(["debug", identifier, "--always"]).status == 0)
        let registry = try Registry(home: world.test.home)
        #expect(try registry.extension(identifier)?.debuggerWait == .always)
        let world = self.world
        let first = Task { try await world.extension("port").request(withInputItems: [NSExtensionItem()]) }
        let pid = try #require(await pidToAttachTo())
        _ = try await attachAndContinue(pid)
        #expect(try await first.value.items != nil)
        #expect(try registry.extension(identifier)?.debuggerWait == .always, "an always wait stays")
        let off = try await world.appex.run(["debug", identifier, "--off"])
        #expect(off.standardOutput.contains("launches as usual"))
        #expect(try registry.extension(identifier)?.debuggerWait == nil)
    }
}
