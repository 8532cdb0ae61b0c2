import AppexHost
import AppexItems
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// Every way an extension can fail ends its request with the outcome that names the
/// failure, and leaves no process, descriptor or temporary file behind.
@Suite(.serialized, .timeLimit(.minutes(2))) final class ExtensionFaultTests {
    let world: FaultWorld

    init() throws {
        world = try FaultWorld()
    }

    /// Installs `fault`, runs one request to it with some text, and returns the outcome
    /// after checking that nothing was left behind.
    func outcome(
        of fault: String, daemon overrides: [String: String] = [:], alsoInstalling others: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ExtensionRequestOutcome {
        try await world.startDaemon(overrides)
        try await world.install(([fault] + others).map { FaultWorld.Plugin(fault: $0) })
        let target = try await world.extension(fault)
        let baseline = world.baseline()
        let outcome = try await target.outcome([textItem("hello")])
        await world.expectNothingLeaked(since: baseline, sourceLocation: sourceLocation)
        return outcome
    }

    /// What an extension writes reaches appexd's log a line at a time after its identifier
    /// and pid, so it can't pass for appexd's own lines; a line longer than the limit goes on
    /// in pieces.
    @Test func anExtensionsOutputGoesToTheLogAfterItsNameAndCantPassForAppexds() async throws {
        try await world.startDaemon()
        try await world.install("attempts")
        let attempts = try await world.extension("attempts")
        let outcome = try await attempts.outcome([textItem("say appexd: forged by an extension\nsay -20000")])
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed\nallowed", "\(outcome)")
        // appexd copies the lines on a thread of its own, which may not have yet.
        let said = "]: appexd: forged by an extension"
        func forgedLine() -> Substring? {
            world.daemonLog.split(separator: "\n").first { $0.hasPrefix(FaultWorld.identifier("attempts") + "[") && $0.hasSuffix(said) }
        }
        _ = await eventually(seconds: 30) { forgedLine() != nil }
        let forged = forgedLine()
        let prefix = try #require(forged.map { String($0.dropLast(said.count - 3)) }, "\(world.daemonLog.suffix(500))")
        #expect(Int32(prefix.dropFirst(FaultWorld.identifier("attempts").count + 1).dropLast(3)) != nil, "the pid: \(prefix)")
        #expect(!world.daemonLog.split(separator: "\n").contains { $0.hasPrefix("appexd: forged") })
        // The line's rest goes on with what the extension writes next (as it is told to end,
        // its runtime says why), or alone once it has ended.
        let (whole, rest) = (String(repeating: "x", count: ExtensionOutputLimit.line), String(repeating: "x", count: 20000 - ExtensionOutputLimit.line))
        // appexd's own lines (the extension ending) may come between the pieces.
        let ended = await eventually(seconds: 30) {
            let lines = self.world.daemonLog.split(separator: "\n")
            guard let first = lines.firstIndex(where: { $0 == prefix + whole }) else { return false }
            return lines[(first + 1)...].contains { $0.hasPrefix(prefix + rest) }
        }
        #expect(ended, "\(world.daemonLog.split(separator: "\n").suffix(6).map { $0.count > 200 ? $0.prefix(80) + "…(\($0.count) bytes)" : $0 })")
        #expect(world.daemonLog.split(separator: "\n").allSatisfy { $0.utf8.count <= prefix.utf8.count + ExtensionOutputLimit.line },
                "no line is longer than the limit")
    }

    /// `ExtensionOutput.lineLimit`, appexd's.
    enum ExtensionOutputLimit {
        static let line = 16 * 1024
    }

    @Test func aCrashBeforeCheckingInIsACrashBySignal() async throws {
        let outcome = try await outcome(of: "crashAtLaunch")
        #expect(outcome.interruption?.reason == .crashed(signal: SIGABRT, exitStatus: nil), "\(outcome)")
    }

    /// `ProcessInfo.performExpiringActivity(withReason:using:)`, as Apple documents it: the
    /// block starts with `false`; when appexd ends the idle extension, it is called again
    /// with `true`, and the process ends once the first call has returned.
    @Test func anExpiringActivityIsExpiredWhenTheExtensionEndsAndTheProcessWaitsForIt() async throws {
        // A generous grace, so that a loaded machine never ends the process before its activity stops.
        let outcome = try await outcome(of: "expiringActivity", daemon: ["APPEX_TERMINATION_GRACE_MS": "10000"])
        #expect(outcome.items != nil, "\(outcome)")
        let identifier = FaultWorld.identifier("expiringActivity")
        func said() -> [String] {
            world.daemonLog.split(separator: "\n").filter { $0.hasPrefix(identifier + "[") && $0.contains(": activity ") }
                .map { String($0.split(separator: ": ").last ?? "") }
        }
        #expect(await eventually(seconds: 30) { said().count == 3 }, "\(world.daemonLog.suffix(800))")
        #expect(said() == ["activity started", "activity expired", "activity stopped"])
        #expect(await eventually(seconds: 30) { self.world.extensionProcesses().isEmpty }, "the process ended once the activity stopped")
        #expect(!world.daemonLog.contains("expiring activity was still running"))
    }

    /// SIGTERM, which appexd sends after its `Goodbye`, ends an extension by itself, as the
    /// `Goodbye` does: it says why and exits within its grace. The runtime watches for it from
    /// its first request on (`ExtensionRuntime.watchForTermination`), off the way to
    /// `beginRequest`.
    @Test func sigtermAfterARequestEndsTheExtensionByItself() async throws {
        // A long idle grace, so that only the signal can end the process.
        try await world.startDaemon(["APPEX_IDLE_GRACE_MS": "120000"])
        try await world.install("echo")
        let outcome = try await world.extension("echo").outcome([textItem("hello")])
        #expect(outcome.items != nil, "\(outcome)")
        let programs = world.extensionProcesses().filter { ProcessTree.name(of: $0) != "appex-init" }
        let program = try #require(programs.first, "the extension's process runs")
        kill(program, SIGTERM)
        let identifier = FaultWorld.identifier("echo")
        #expect(await eventually(seconds: 30) { self.world.daemonLog.contains("\(identifier)[") && self.world.daemonLog.contains("SIGTERM: appexd ends this extension") },
                "\(world.daemonLog.suffix(800))")
        #expect(await eventually(seconds: 30) { self.world.extensionProcesses().isEmpty }, "the process ended")
    }

    /// A host that goes to the background and back says so (`InteractiveRequest.post`), and
    /// the extension gets Apple's notifications, in order, with its request's context.
    @Test func theHostsLifecycleReachesTheExtensionAsApplesNotifications() async throws {
        try await world.startDaemon()
        try await world.install("observesHost")
        let request = try await world.extension("observesHost").beginInteractiveRequest(withInputItems: [textItem("hello")])
        // The extension observes once its request begins; a host posts as its state changes.
        try await Task.sleep(for: .milliseconds(300))
        for change in [HostLifecycle.willResignActive, .didEnterBackground, .willEnterForeground, .didBecomeActive] {
            try request.post(change)
        }
        let outcome = try await bounded(seconds: 30) { await request.outcome() }
        #expect(outcome.items?.first?.attributedContentText?.string.split(separator: "\n") == [
            "NSExtensionHostWillResignActiveNotification", "NSExtensionHostDidEnterBackgroundNotification",
            "NSExtensionHostWillEnterForegroundNotification", "NSExtensionHostDidBecomeActiveNotification",
        ], "\(outcome)")
    }

    /// Apple types the returned items `[Any]`: what isn't an item is left out, and logged.
    @Test func returnedItemsThatAreNotItemsAreLeftOut() async throws {
        let outcome = try await outcome(of: "returnsAStringAmongItems")
        #expect(outcome.items?.map { $0.attributedContentText?.string } == ["first", "second"], "\(outcome)")
    }

    @Test func aCrashDuringTheRequestIsACrashBySignal() async throws {
        let outcome = try await outcome(of: "crashInRequest")
        #expect(outcome.interruption?.reason == .crashed(signal: SIGABRT, exitStatus: nil), "\(outcome)")
    }

    @Test(arguments: ["crashAfterCompleting", "crashAsItCompletes"])
    func aCrashAfterCompletingLeavesTheRequestCompleted(fault: String) async throws {
        let outcome = try await outcome(of: fault)
        let items = try #require(outcome.items, "\(outcome)")
        #expect(items.first?.attributedContentText?.string == "done")
    }

    @Test func anExtensionThatNeverChecksInMissesItsLaunchDeadline() async throws {
        let outcome = try await outcome(of: "neverChecksIn", daemon: ["APPEX_LAUNCH_DEADLINE_MS": "300"])
        #expect(outcome.interruption?.reason == .launchDeadlineMissed(limitMilliseconds: 300), "\(outcome)")
    }

    @Test func anExtensionThatNeverAnswersMissesItsRequestDeadline() async throws {
        let outcome = try await outcome(of: "neverAnswers", daemon: ["APPEX_REQUEST_DEADLINE_MS": "300"])
        #expect(outcome.interruption?.reason == .requestDeadlineMissed(limitMilliseconds: 300), "\(outcome)")
    }

    @Test func anExtensionOverItsMemoryLimitIsEnded() async throws {
        let outcome = try await outcome(of: "exceedsMemory", daemon: ["APPEX_MEMORY_LIMIT_MB": "40"])
        guard case .memoryLimitExceeded(let limit, let measured)? = outcome.interruption?.reason else {
            Issue.record("expected memoryLimitExceeded, got \(outcome)")
            return
        }
        // The footprint watch ends it at 40 MiB; if it allocated faster than the watch looks,
        // the kernel ends it at the cgroup's hard limit, 56 MiB.
        #expect(limit == 40 << 20 || limit == 56 << 20, "\(outcome)")
        #expect(measured > 40 << 20)
    }

    @Test func anExtensionThatAllocatesFasterThanTheWatchIsEndedAsOverItsLimit() async throws {
        let outcome = try await outcome(of: "exceedsMemoryAtOnce", daemon: ["APPEX_MEMORY_LIMIT_MB": "40"])
        guard case .memoryLimitExceeded(let limit, _)? = outcome.interruption?.reason else {
            Issue.record("expected memoryLimitExceeded, got \(outcome)")
            return
        }
        if case .success = Cgroup.Parent.discover(.memory) {
            // The kernel ends it at the hard limit before it touches 512 MiB; 56 MiB is 40 + 16.
            #expect(limit == 56 << 20 || limit == 40 << 20, "\(outcome)")
        } else {
            #expect(limit == 40 << 20, "\(outcome)")
        }
    }

    @Test(.enabled(if: !Sanitizers.areActive, "a sanitized build sets no address-space limit"))
    func anExtensionCantMapTensOfGiBOfAddressSpace() async throws {
        // Its point's limit is 120 MiB: the backstop is 150 MiB + 4 GiB of address space.
        let outcome = try await outcome(of: "mapsHugeAddressSpace")
        let text = try #require(outcome.items, "\(outcome)").first?.attributedContentText?.string
        #expect(text == "refused: Cannot allocate memory", "\(outcome)")
    }

    @Test func garbageOnTheSessionIsAProtocolError() async throws {
        let outcome = try await outcome(of: "garbageOnSession", alsoInstalling: ["echo"])
        #expect(outcome.interruption?.reason == .protocolError, "\(outcome)")
        try await expectTheDaemonServesOtherHosts()
    }

    @Test func aSessionTheHostClosedEndsItsProcessAtOnce() async throws {
        // The extension hangs rather than exit when its session closes, and its idle grace
        // is a minute: only the host's CloseSession ends it within the leak check's wait.
        let outcome = try await outcome(of: "garbageOnSessionThenHang", daemon: ["APPEX_IDLE_GRACE_MS": "60000"])
        #expect(outcome.interruption?.reason == .protocolError, "\(outcome)")
    }

    @Test func garbageOnTheDaemonChannelIsAProtocolError() async throws {
        let outcome = try await outcome(of: "garbageOnControl", alsoInstalling: ["echo"])
        #expect(outcome.interruption?.reason == .protocolError, "\(outcome)")
        try await expectTheDaemonServesOtherHosts()
    }

    @Test func aFrameBegunOnTheDaemonChannelAndNeverFinishedIsAProtocolErrorAtItsDeadline() async throws {
        // Its request deadline is a minute away: only the frame's deadline can end it first.
        let outcome = try await outcome(of: "partialFrameOnControl", daemon: ["APPEX_FRAME_DEADLINE_MS": "300", "APPEX_REQUEST_DEADLINE_MS": "60000"],
                                        alsoInstalling: ["echo"])
        #expect(outcome.interruption?.reason == .protocolError, "\(outcome)")
        #expect(outcome.interruption?.message.contains("sent a malformed frame on its daemon channel") == true, "\(outcome)")
        #expect(outcome.interruption?.message.contains("18 bytes of a frame came, and not the rest within 0.3 seconds") == true, "\(outcome)")
        try await expectTheDaemonServesOtherHosts()
    }

    @Test func checkingInAsAnotherBundleIsAProtocolError() async throws {
        let outcome = try await outcome(of: "checksInAsAnother", alsoInstalling: ["echo"])
        #expect(outcome.interruption?.reason == .protocolError, "\(outcome)")
        #expect(outcome.interruption?.message.contains("checked in as com.example.someone-else") == true, "\(outcome)")
        try await expectTheDaemonServesOtherHosts()
    }

    @Test func aMessageTheDaemonChannelNeverCarriesIsAProtocolError() async throws {
        try await world.startDaemon()
        try await world.install("attempts", "echo")
        let attempts = try await world.extension("attempts")
        let baseline = world.baseline()
        // The URL it asks to open next waits for appexd's answer, which never comes: appexd
        // has read the BeginRequest first.
        let outcome = try await attempts.outcome([textItem("raw beginRequest\nopenURL faultapp://after")])
        #expect(outcome.interruption?.reason == .protocolError, "\(outcome)")
        #expect(outcome.interruption?.message.contains("sent BeginRequest on its daemon channel, which never carries it") == true, "\(outcome)")
        await world.expectNothingLeaked(since: baseline)
        try await expectTheDaemonServesOtherHosts()
    }

    @Test(arguments: [
        ("AppexFaultExtension.Missing", "is not in this executable"),
        ("AppexFaultExtension.NotAHandler", "does not adopt NSExtensionRequestHandling"),
        ("AppexFaultExtension.NotAnObject", "is not a subclass of NSObject"),
    ])
    func aPrincipalClassThatCantServeFailsTheLaunchAndSaysWhich(principalClass: String, problem: String) async throws {
        try await world.startDaemon()
        try await world.install([FaultWorld.Plugin(fault: "echo", principalClass: principalClass)])
        let target = try await world.extension("echo")
        let baseline = world.baseline()
        let outcome = try await target.outcome([textItem("hello")])
        #expect(outcome.interruption?.reason == .launchFailed, "\(outcome)")
        #expect(outcome.interruption?.message.contains("principal class \(principalClass) ") == true, "\(outcome)")
        #expect(outcome.interruption?.message.contains(problem) == true, "\(outcome)")
        await world.expectNothingLeaked(since: baseline)
    }

    /// Another host, the `appex` command, still gets its requests served by the same daemon,
    /// whose extension ends with it.
    func expectTheDaemonServesOtherHosts(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let daemons = world.daemons()
        let result = try await world.appex.run(["run", FaultWorld.identifier("echo"), "--text", "still here", "--timeout", "30"])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.contains("still here"), "\(result.standardOutput)", sourceLocation: sourceLocation)
        #expect(world.daemons() == daemons, "the same daemon answered", sourceLocation: sourceLocation)
        #expect(await eventually { self.world.extensionProcesses().isEmpty }, sourceLocation: sourceLocation)
    }
}
