@testable import AppexHost
import AppexItems
import AppexLocking
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// A host's further requests to an extension go straight to its live process, and appexd
/// still enforces the point's policy on them and reports how they end. An idle session is
/// closed by the host when appexd asks, and the next request starts a new process.
@Suite(.serialized, .timeLimit(.minutes(2))) final class LiveSessionTests {
    let world: FaultWorld

    init() throws {
        world = try FaultWorld()
    }

    @Test func aRequestOnALiveSessionRunsInTheSameProcessUnderItsDeadline() async throws {
        // A minute's idle grace: however slow the machine, the second request finds the process;
        // and 8 s for the request, so a loaded machine still sees it counted before it misses that.
        try await world.startDaemon(["APPEX_REQUEST_DEADLINE_MS": "8000", "APPEX_IDLE_GRACE_MS": "60000"])
        try await world.install("neverAnswersSecondRequest")
        let target = try await world.extension("neverAnswersSecondRequest")
        let baseline = world.baseline()
        let first = try await target.outcome([textItem("one")])
        #expect(first.items != nil, "\(first)")
        let pid = try #require(world.extensionSessions().first)

        let interrupted = AsyncStream<ExtensionInterruption?>.makeStream()
        target.requestInterruptionBlock = { [target] requestID in
            interrupted.continuation.yield(target.interruption(forRequestIdentifier: requestID))
        }
        let second = try await target.beginExtensionRequest(withInputItems: [textItem("two")])
        #expect(target.pid(forRequestIdentifier: second) == pid)
        // appexd heard of the request only by RequestBegun, and counts it.
        let daemon = try await DaemonClient.connect(home: world.test.home, role: .cli, startIfNeeded: false)
        var counted = false
        for _ in 0..<400 where !counted {
            counted = try await daemon.processes().first { $0.pid == pid }?.activeRequests == 1
            if !counted { try await Task.sleep(for: .milliseconds(10)) }
        }
        daemon.close()
        #expect(counted, "appexd lists the direct request as running")

        let interruption = try await bounded { await interrupted.stream.first { _ in true } } ?? nil
        #expect(interruption?.reason == .requestDeadlineMissed(limitMilliseconds: 8000), "\(String(describing: interruption))")
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func aCrashDuringARequestOnALiveSessionIsReportedWithItsSignal() async throws {
        try await world.startDaemon(["APPEX_IDLE_GRACE_MS": "60000"])
        try await world.install("crashInSecondRequest")
        let target = try await world.extension("crashInSecondRequest")
        let baseline = world.baseline()
        let first = try await target.outcome([textItem("one")])
        #expect(first.items != nil, "\(first)")
        #expect(world.extensionSessions().count == 1)
        let second = try await target.outcome([textItem("two")])
        #expect(second.interruption?.reason == .crashed(signal: SIGABRT, exitStatus: nil), "\(second)")
        await world.expectNothingLeaked(since: baseline)
    }

    /// As on Apple's systems, each request gets a new instance of the principal class, which
    /// the system keeps until the request is answered, though nothing else holds it.
    @Test func eachRequestOnALiveSessionHasItsOwnPrincipalObjectKeptUntilItAnswers() async throws {
        // Ten seconds' grace: the second request finds the process however slow the machine,
        // and the process ends in time for the leak check.
        try await world.startDaemon(["APPEX_IDLE_GRACE_MS": "10000"])
        try await world.install("answersThroughItsHandler")
        let target = try await world.extension("answersThroughItsHandler")
        let baseline = world.baseline()
        var answers: [String] = []
        for text in ["one", "two"] {
            let outcome = try await target.outcome([textItem(text)])
            answers.append(outcome.items?.first?.attributedContentText?.string ?? "\(outcome)")
        }
        #expect(answers == ["handler 1 of 1", "handler 1 of 2"], "a new handler each time, in one process")
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func anIdleSessionIsClosedAndTheNextRequestStartsANewProcess() async throws {
        try await world.startDaemon()
        try await world.install("echo")
        let echo = try await world.extension("echo")
        let baseline = world.baseline()
        let completed = Locked<Set<UUID>>([])
        echo.requestCompletionBlock = { requestID, _ in completed.withLock { _ = $0.insert(requestID) } }

        let first = try await echo.beginExtensionRequest(withInputItems: [textItem("one")])
        let firstPID = echo.pid(forRequestIdentifier: first)
        #expect(await eventually { completed.withLock { $0.contains(first) } })
        // The idle grace is 200 ms: appexd asks, the host closes the session, the process ends.
        #expect(await eventually { self.world.extensionProcesses().isEmpty })

        let second = try await echo.beginExtensionRequest(withInputItems: [textItem("two")])
        let secondPID = echo.pid(forRequestIdentifier: second)
        #expect(firstPID > 0 && secondPID > 0 && secondPID != firstPID, "\(firstPID) then \(secondPID)")
        #expect(await eventually { completed.withLock { $0.contains(second) } })
        await world.expectNothingLeaked(since: baseline)
        #expect(!world.daemonLog.contains("did not close the idle session"), "\(world.daemonLog)")
        #expect(await eventually { RequestBroker.existing(home: self.world.test.home)?.rememberedSessionCount == 0 },
                "the host forgets the sessions it closed")
    }
}
