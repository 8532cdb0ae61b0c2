import AppexIPC
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// The host acknowledges returned items only to an extension whose completion handler
/// waits for it, and that handler runs once the acknowledgement arrives.
@Suite(.serialized, .timeLimit(.minutes(2))) final class AcknowledgementTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
    }

    /// The answer of `fault`'s extension to one request from a raw client, and the request's process.
    func answer(of fault: String) async throws -> (RawClient, RequestItems, RequestStarted) {
        try await world.install(fault)
        let client = try await RawClient.connect(home: world.test.home, version: WireVersion.current)
        let requestID = UUID()
        let started = try await client.begin(requestID, extension: FaultWorld.identifier(fault))
        guard case .completeRequest(let answer)? = try await client.request(requestID, on: started.sessionID) else {
            client.close()
            throw WorldError("\(fault) did not complete the request")
        }
        return (client, answer, started)
    }

    @Test func anExtensionWithoutACompletionHandlerAsksForNoAcknowledgement() async throws {
        let (client, answer, _) = try await answer(of: "describe")
        defer { client.close() }
        #expect(answer.withoutAcknowledgement)
    }

    @Test func anExtensionsCompletionHandlerRunsWhenTheAcknowledgementArrives() async throws {
        // Its completion handler aborts the process.
        let (client, answer, started) = try await answer(of: "crashAfterCompleting")
        defer { client.close() }
        #expect(!answer.withoutAcknowledgement)
        try await Task.sleep(for: .milliseconds(100))
        #expect(FaultWorld.processes().contains(started.pid), "the handler waits for the acknowledgement")
        try client.acknowledge(answer.requestID, on: started.sessionID)
        guard case .requestInterrupted(let report)? = await client.nextFromDaemon(matching: { if case .requestInterrupted = $0 { true } else { false } }) else {
            Issue.record("no report of the process's end")
            return
        }
        #expect(report.reason.signal == SIGABRT, "\(report.reason)")
    }
}
