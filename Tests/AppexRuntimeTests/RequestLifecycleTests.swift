@testable import AppexHost
import Testing

/// The host's request state machine, without a socket: every transition, and an outcome
/// delivered once and only once whatever order events come in.
@Suite struct RequestLifecycleTests {
    static let crash = ExtensionInterruption(.crashed(signal: 6, exitStatus: nil), message: "crashed")
    static let deadline = ExtensionInterruption(.requestDeadlineMissed(limitMilliseconds: 10), message: "late")

    /// One event the broker feeds a request's lifecycle.
    enum Event: CaseIterable {
        case startedOnOne, startedOnTwo, sessionClosed, daemonReported, answered

        /// Applies the event as the broker does; returns the interruption delivered, or
        /// `answer` for an answer delivered, or nil if nothing was.
        func apply(to lifecycle: inout RequestLifecycle) -> String? {
            switch self {
            case .startedOnOne:
                _ = lifecycle.started(session: 1)
            case .startedOnTwo:
                _ = lifecycle.started(session: 2)
            case .sessionClosed:
                if case .deliver(let interruption) = lifecycle.sessionClosed(), lifecycle.end() { return interruption.message }
            case .daemonReported:
                if lifecycle.daemonReported(RequestLifecycleTests.crash) == .deliver, lifecycle.end() { return "crashed" }
            case .answered:
                if lifecycle.end() { return "answer" }
            }
            return nil
        }
    }

    @Test func aNewRequestIsStartingWithoutASession() {
        let lifecycle = RequestLifecycle()
        #expect(lifecycle.phase == .starting)
        #expect(lifecycle.session == nil)
        #expect(!lifecycle.hasEnded)
    }

    @Test func startingToRunningOnce() {
        var lifecycle = RequestLifecycle()
        let first = lifecycle.started(session: 1)
        let second = lifecycle.started(session: 2)
        #expect(first && !second)
        #expect(lifecycle.phase == .running(session: 1))
        #expect(lifecycle.session == 1)
    }

    @Test func runningToSessionLostWaitsForTheReasonAndKeepsTheSession() {
        var lifecycle = RequestLifecycle()
        _ = lifecycle.started(session: 1)
        let closed = lifecycle.sessionClosed()
        #expect(closed == .waitForReason)
        #expect(lifecycle.phase == .sessionLost(session: 1))
        #expect(lifecycle.session == 1)
        let again = lifecycle.sessionClosed()
        let restarted = lifecycle.started(session: 2)
        #expect(again == .ignore && !restarted)
        #expect(lifecycle.phase == .sessionLost(session: 1))
    }

    @Test func aSessionClosingBeforeTheRequestStartedIsIgnored() {
        var lifecycle = RequestLifecycle()
        let closed = lifecycle.sessionClosed()
        #expect(closed == .ignore)
        #expect(lifecycle.phase == .starting)
    }

    @Test func aReportBeforeTheSessionOrAfterItClosedIsDeliveredAtOnce() {
        var starting = RequestLifecycle()
        let early = starting.daemonReported(Self.crash)
        #expect(early == .deliver)
        var lost = RequestLifecycle()
        _ = lost.started(session: 1)
        _ = lost.sessionClosed()
        let late = lost.daemonReported(Self.crash)
        #expect(late == .deliver)
    }

    @Test func aReportWhileTheSessionIsOpenWaitsForItToClose() {
        var lifecycle = RequestLifecycle()
        _ = lifecycle.started(session: 1)
        let first = lifecycle.daemonReported(Self.deadline)
        let second = lifecycle.daemonReported(Self.crash)
        #expect(first == .holdUntilSessionCloses && second == .holdUntilSessionCloses)
        #expect(lifecycle.phase == .running(session: 1))
        let closed = lifecycle.sessionClosed()
        #expect(closed == .deliver(Self.deadline), "the first reason holds")
    }

    @Test func anAnswerStillInTheSessionWinsOverAHeldReport() {
        var lifecycle = RequestLifecycle()
        _ = lifecycle.started(session: 1)
        _ = lifecycle.daemonReported(Self.crash)
        let answered = lifecycle.end()
        #expect(answered)
        let closed = lifecycle.sessionClosed()
        let reported = lifecycle.daemonReported(Self.crash)
        #expect(closed == .ignore && reported == .ignore)
    }

    @Test(arguments: [[Event](), [.startedOnOne], [.startedOnOne, .sessionClosed], [.startedOnOne, .daemonReported]])
    func everyPhaseBeforeTheEndCanEnd(path: [Event]) {
        var lifecycle = RequestLifecycle()
        for event in path { _ = event.apply(to: &lifecycle) }
        let ended = lifecycle.end()
        #expect(ended)
        #expect(lifecycle.phase == .ended)
        #expect(lifecycle.hasEnded)
        #expect(lifecycle.session == nil)
    }

    @Test func anEndedRequestTakesNoMoreEvents() {
        var lifecycle = RequestLifecycle()
        _ = lifecycle.end()
        for event in Event.allCases {
            let delivered = event.apply(to: &lifecycle)
            #expect(delivered == nil, "\(event)")
            #expect(lifecycle.phase == .ended)
        }
    }

    /// Every sequence of up to six events: at most one outcome is delivered, it is delivered
    /// exactly when the request has ended, and an answer that comes while the session is
    /// open is never beaten by appexd's report.
    @Test func theOutcomeIsDeliveredExactlyOnceInEveryOrder() {
        var sequences: [[Event]] = [[]]
        var longest: [[Event]] = [[]]
        for _ in 0..<6 {
            longest = longest.flatMap { sequence in Event.allCases.map { sequence + [$0] } }
            sequences += longest
        }
        for sequence in sequences {
            var lifecycle = RequestLifecycle()
            let delivered = sequence.compactMap { $0.apply(to: &lifecycle) }
            #expect(delivered.count <= 1, "\(sequence)")
            #expect(lifecycle.hasEnded == (delivered.count == 1), "\(sequence)")
            // The answer comes while the session is open, and appexd reports nothing before
            // the request started: no report may beat it.
            guard let started = sequence.firstIndex(where: { $0 == .startedOnOne || $0 == .startedOnTwo }),
                  !sequence[..<started].contains(.daemonReported),
                  let answer = sequence.firstIndex(of: .answered), answer > started,
                  !sequence[started..<answer].contains(.sessionClosed) else { continue }
            #expect(delivered == ["answer"], "\(sequence)")
        }
    }
}
