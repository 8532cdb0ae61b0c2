import AppexIPC
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// appexd's side of requests sent straight on a live session (protocol version 2), seen by
/// a host that speaks the protocol by hand: `SessionIdle`, `RequestBegun`, and the report of
/// every session's end. A host that doesn't play its part loses its own process or its
/// connection, never another host's.
@Suite(.serialized, .timeLimit(.minutes(2))) final class SessionIdleProtocolTests {
    let world: FaultWorld

    /// How long a host asked to close an idle session has before appexd ends the process:
    /// shorter than appexd's 10 s default, to keep the test short, and long enough that a
    /// loaded machine never runs it out between the test's steps by accident.
    static let idleCloseDeadline = Duration.seconds(3)

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon(["APPEX_IDLE_CLOSE_MS": "\(Self.idleCloseDeadline.components.seconds * 1000)"])
    }

    /// A version-2 client with one answered request on a new session to `fault`'s extension.
    func clientWithAnsweredRequest(to fault: String = "echo", version: UInt32 = 2) async throws -> (RawClient, RequestStarted) {
        try await world.install(fault)
        let client = try await RawClient.connect(home: world.test.home, version: version)
        let requestID = UUID()
        let started = try await client.begin(requestID, extension: FaultWorld.identifier(fault))
        let answer = try await client.request(requestID, on: started.sessionID)
        guard case .completeRequest? = answer else { throw WorldError("the first request was answered with \(String(describing: answer))") }
        try client.daemon.send(.endRequest(RequestReference(requestID)))
        return (client, started)
    }

    static func isSessionIdle(_ session: UInt64) -> @Sendable (WireMessage) -> Bool {
        { if case .sessionIdle(let idle) = $0 { idle.sessionID == session } else { false } }
    }

    static func isReport(for session: UInt64) -> @Sendable (WireMessage) -> Bool {
        { if case .requestInterrupted(let report) = $0 { report.sessionID == session } else { false } }
    }

    static func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 && FaultWorld.processes().contains(pid) }

    @Test func appexdAsksTheHostToCloseAnIdleSessionAndEndsItsProcessWhenItDoes() async throws {
        let (client, started) = try await clientWithAnsweredRequest()
        defer { client.close() }
        let idle = await client.nextFromDaemon(matching: Self.isSessionIdle(started.sessionID))
        #expect(idle != nil, "SessionIdle arrives after the 200 ms idle grace")
        #expect(Self.isAlive(started.pid), "appexd waits for the host's answer")
        client.closeSession(started.sessionID)
        try client.daemon.send(.closeSession(SessionReference(started.sessionID)))
        #expect(await eventually { !Self.isAlive(started.pid) })
        // A version-2 host hears of every session's end, even with no request on it.
        guard case .requestInterrupted(let report)? = await client.nextFromDaemon(matching: Self.isReport(for: started.sessionID)) else {
            Issue.record("no report of the session's end")
            return
        }
        #expect(report.requestIDs.isEmpty)
    }

    @Test func aRequestBegunAfterSessionIdleKeepsTheProcess() async throws {
        let (client, started) = try await clientWithAnsweredRequest()
        defer { client.close() }
        #expect(await client.nextFromDaemon(matching: Self.isSessionIdle(started.sessionID)) != nil)
        // The host had sent a request before it read SessionIdle: it keeps the session.
        let requestID = UUID()
        guard case .completeRequest? = try await client.requestStraight(requestID, on: started.sessionID) else {
            Issue.record("the request on the kept session was not answered")
            return
        }
        // Past the deadline by which an unanswered SessionIdle ends the process.
        try await Task.sleep(for: Self.idleCloseDeadline + .milliseconds(500))
        #expect(Self.isAlive(started.pid))
        try client.daemon.send(.endRequest(RequestReference(requestID)))
        // Idle again: asked again.
        #expect(await client.nextFromDaemon(matching: Self.isSessionIdle(started.sessionID)) != nil)
        client.closeSession(started.sessionID)
        try client.daemon.send(.closeSession(SessionReference(started.sessionID)))
        #expect(await eventually { !Self.isAlive(started.pid) })
    }

    /// The host sent a request straight on the session, then read the stale `SessionIdle`
    /// and will close the session once that request ends. Its next `BeginRequest`, sent
    /// before appexd has the close, must start a new session: an answer naming the old one
    /// would name a session the host no longer has.
    @Test func aBeginRequestAfterSessionIdleNeverReusesThatSessionEvenIfARequestRanOnItSince() async throws {
        let (client, started) = try await clientWithAnsweredRequest()
        defer { client.close() }
        #expect(await client.nextFromDaemon(matching: Self.isSessionIdle(started.sessionID)) != nil)
        let straight = UUID()
        guard case .completeRequest? = try await client.requestStraight(straight, on: started.sessionID) else {
            Issue.record("the request sent straight on the session was not answered")
            return
        }
        try client.daemon.send(.endRequest(RequestReference(straight)))
        client.closeSession(started.sessionID)
        let next = UUID()
        let restarted = try await client.begin(next, extension: FaultWorld.identifier("echo"))
        #expect(restarted.isNewSession)
        #expect(restarted.sessionID != started.sessionID)
        #expect(restarted.pid != started.pid)
        try client.daemon.send(.closeSession(SessionReference(started.sessionID)))
        guard case .completeRequest? = try await client.request(next, on: restarted.sessionID) else {
            Issue.record("the request on the new session was not answered")
            return
        }
        #expect(await eventually { !Self.isAlive(started.pid) })
    }

    @Test func aHostThatIgnoresSessionIdleHasTheProcessEndedAfterTheGrace() async throws {
        let (client, started) = try await clientWithAnsweredRequest()
        defer { client.close() }
        #expect(await client.nextFromDaemon(matching: Self.isSessionIdle(started.sessionID)) != nil)
        guard case .requestInterrupted(let report)? = await client.nextFromDaemon(matching: Self.isReport(for: started.sessionID)) else {
            Issue.record("no report of the session's end")
            return
        }
        #expect(report.reason.kind == .protocolError)
        #expect(report.reason.message.contains("did not close the idle session"), "\(report.reason.message)")
        #expect(!Self.isAlive(started.pid))
    }

    @Test func aVersion1HostHasIdleProcessesEndedWithoutBeingAsked() async throws {
        let (client, started) = try await clientWithAnsweredRequest(version: 1)
        defer { client.close() }
        #expect(await eventually { !Self.isAlive(started.pid) })
        // Nothing arrived: no SessionIdle, and no report for a session with no request.
        #expect(await client.nextFromDaemon(within: 0.3) == nil)
    }

    @Test func aProcessThatEndsBeforeItsRequestBegunArrivesIsStillReported() async throws {
        let (client, started) = try await clientWithAnsweredRequest(to: "crashInSecondRequest")
        defer { client.close() }
        // The second request reaches the extension, which aborts, before appexd hears of it:
        // here, appexd never does.
        _ = try await client.request(UUID(), on: started.sessionID, within: 0.5)
        guard case .requestInterrupted(let report)? = await client.nextFromDaemon(matching: Self.isReport(for: started.sessionID)) else {
            Issue.record("no report of the session's end")
            return
        }
        #expect(report.reason.kind == .crashed && report.reason.signal == SIGABRT, "\(report.reason)")
    }

    @Test func requestBegunForAnotherHostsSessionIsRefused() async throws {
        let (owner, started) = try await clientWithAnsweredRequest()
        defer { owner.close() }
        let intruder = try await RawClient.connect(home: world.test.home, version: 2)
        defer { intruder.close() }
        try intruder.daemon.send(.requestBegun(RequestBegun(requestID: UUID(), sessionID: started.sessionID)))
        guard case .failure(let failure)? = await intruder.nextFromDaemon() else {
            Issue.record("the intruder was not refused")
            return
        }
        #expect(failure.error.message.contains("another client's"), "\(failure.error.message)")
        #expect(await eventually { intruder.daemonClosure != nil })
        // The owner's session still serves it.
        let requestID = UUID()
        guard case .completeRequest? = try await owner.requestStraight(requestID, on: started.sessionID) else {
            Issue.record("the owner's session no longer serves it")
            return
        }
        #expect(owner.daemonClosure == nil)
    }

    /// The failure appexd refused `intruder` with, once it has closed the connection.
    func refusal(of intruder: RawClient) async -> String? {
        guard case .failure(let failure)? = await intruder.nextFromDaemon(matching: { if case .failure = $0 { true } else { false } }) else { return nil }
        return await eventually { intruder.daemonClosure != nil } ? failure.error.message : nil
    }

    @Test(arguments: [true, false])
    func endingOrCancellingAnotherHostsRequestIsRefused(cancelling: Bool) async throws {
        try await world.install("echo")
        let owner = try await RawClient.connect(home: world.test.home, version: 2)
        defer { owner.close() }
        let requestID = UUID()
        let started = try await owner.begin(requestID, extension: FaultWorld.identifier("echo"))
        let intruder = try await RawClient.connect(home: world.test.home, version: 2)
        defer { intruder.close() }
        let reference = RequestReference(requestID)
        try intruder.daemon.send(cancelling ? .cancelRequest(reference) : .endRequest(reference))
        let refusal = await refusal(of: intruder)
        #expect(refusal?.contains("\(cancelling ? "CancelRequest" : "EndRequest") named request \(requestID), which is another client's") == true,
                "\(refusal ?? "not refused")")
        // The owner's request is still its own, and runs.
        guard case .completeRequest? = try await owner.request(requestID, on: started.sessionID) else {
            Issue.record("the owner's request no longer runs")
            return
        }
        #expect(owner.daemonClosure == nil)
    }

    @Test func aMessageAppexdNeverTakesFromAClientIsRefused() async throws {
        let client = try await RawClient.connect(home: world.test.home, version: 2)
        defer { client.close() }
        try client.daemon.send(.sessionIdle(SessionReference(1)))
        let refusal = await refusal(of: client)
        #expect(refusal?.contains("SessionIdle is not something a client sends to appexd") == true, "\(refusal ?? "not refused")")
    }

    @Test func closingAnotherHostsSessionIsRefused() async throws {
        let (owner, started) = try await clientWithAnsweredRequest()
        defer { owner.close() }
        let intruder = try await RawClient.connect(home: world.test.home, version: 2)
        defer { intruder.close() }
        try intruder.daemon.send(.closeSession(SessionReference(started.sessionID)))
        let refusal = await refusal(of: intruder)
        #expect(refusal?.contains("CloseSession named session \(started.sessionID), which is another client's") == true, "\(refusal ?? "not refused")")
        #expect(Self.isAlive(started.pid), "the owner's extension still runs")
        let requestID = UUID()
        guard case .completeRequest? = try await owner.requestStraight(requestID, on: started.sessionID) else {
            Issue.record("the owner's session no longer serves it")
            return
        }
        #expect(owner.daemonClosure == nil)
    }

    @Test func requestBegunOnAVersion1ConnectionIsRefused() async throws {
        let (client, started) = try await clientWithAnsweredRequest(version: 1)
        defer { client.close() }
        try client.daemon.send(.requestBegun(RequestBegun(requestID: UUID(), sessionID: started.sessionID)))
        guard case .failure(let failure)? = await client.nextFromDaemon(matching: { if case .failure = $0 { true } else { false } }) else {
            Issue.record("RequestBegun on version 1 was not refused")
            return
        }
        #expect(failure.error.message.contains("needs protocol version 2"), "\(failure.error.message)")
    }
}
