import AppexIPC
import AppexSystem
import AppexWire
import Foundation
import Synchronization
import Testing

/// Calls and their answers, matched by call number.
@Suite(.timeLimit(.minutes(1))) struct ConnectionCallTests {
    @Test func aCallGetsItsAnswer() async throws {
        let (left, right) = try UnixSocket.pair()
        let server = startServer(right)
        let (client, _) = startClient(left)
        defer { client.close(); server.close() }

        let answer = try await client.call { .ping(Call($0)) }
        guard case .pong(let pong) = answer.message else {
            Issue.record("expected Pong, got \(answer.message.name)")
            return
        }
        #expect(answer.message.callNumber == pong.call)
        #expect(answer.descriptors.isEmpty)
        let second = try await client.call { .ping(Call($0)) }
        #expect(second.message.callNumber != pong.call, "every call gets its own number")
    }

    @Test func aFailureAnswerIsThrown() async throws {
        let (left, right) = try UnixSocket.pair()
        let server = startServer(right)
        let (client, _) = startClient(left)
        defer { client.close(); server.close() }

        let error = await #expect(throws: ConnectionError.self) {
            try await client.call { .queryExtensions(QueryExtensions(call: $0, point: "fail")) }
        }
        #expect(error == .failed(ErrorInfo(domain: "test", code: -7, message: "refused")))
        #expect(error?.description == "refused")
        // The connection carries on.
        #expect(answeredPoint(try await client.call { .queryExtensions(QueryExtensions(call: $0, point: "ok")) }) == "ok")
    }

    @Test func messagesThatAnswerNoCallGoToTheHandler() async throws {
        let (left, right) = try UnixSocket.pair()
        let peer = RawPeer(right)
        let inbox = Inbox<WireMessage>()
        let (client, _) = startClient(left) { inbox.put($0.message) }
        defer { client.close() }

        let unsolicited: [WireMessage] = [
            .failure(Failure(call: 0, error: ErrorInfo(domain: "appex", code: 1, message: "not an answer"))),
            .pong(Call(999)), // no call 999 is waiting
            .goodbye(Goodbye(reason: "bye", graceMilliseconds: 5)),
            .ping(Call(1)),
        ]
        for message in unsolicited { try peer.send(message) }
        for message in unsolicited { #expect(await inbox.next() == message) }
    }

    @Test func manyConcurrentCallsFromSeveralTasksEachGetTheirOwnAnswer() async throws {
        let (left, right) = try UnixSocket.pair()
        let server = startServer(right)
        let (client, _) = startClient(left)
        defer { client.close(); server.close() }

        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for call in 0..<50 {
                        let point = "task \(task) call \(call)"
                        let answer = try await client.call { .queryExtensions(QueryExtensions(call: $0, point: point)) }
                        if answeredPoint(answer) != point { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func answersInAnotherOrderStillReachTheirCalls() async throws {
        let (left, right) = try UnixSocket.pair()
        let peer = RawPeer(right)
        let (client, _) = startClient(left)
        defer { client.close() }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<10 {
                group.addTask {
                    let point = "call \(index)"
                    let answer = try await client.call { .queryExtensions(QueryExtensions(call: $0, point: point)) }
                    #expect(answeredPoint(answer) == point)
                }
            }
            // Collect all ten calls before answering any, then answer the last first.
            var queries: [QueryExtensions] = []
            while queries.count < 10 {
                guard case .queryExtensions(let query)? = try await peer.receive()?.message else { continue }
                queries.append(query)
            }
            for query in queries.reversed() {
                let summary = ExtensionSummary(identifier: query.point, point: query.point, displayName: "", version: "",
                                               containingApp: "", bundlePath: "", isEnabled: true)
                try peer.send(.queryResult(QueryResult(call: query.call, extensions: [summary])))
            }
            try await group.waitForAll()
        }
    }

    @Test func aMessageTooLargeForAFrameIsRefusedAndTheConnectionCarriesOn() async throws {
        let (left, right) = try UnixSocket.pair()
        let server = startServer(right)
        let (client, _) = startClient(left)
        defer { client.close(); server.close() }

        let huge = WireMessage.checkIn(CheckIn(bundleIdentifier: String(repeating: "x", count: Frame.maximumPayloadSize)))
        let tooLarge = #expect(throws: ConnectionError.self) { try client.send(huge) }
        guard case .wire(let error)? = tooLarge else {
            Issue.record("expected a wire error, got \(String(describing: tooLarge))")
            return
        }
        #expect(error.code == .messageTooLarge)

        let file = try memoryFile("x")
        let crowded = #expect(throws: ConnectionError.self) {
            try client.send(.ping(Call(1)), descriptors: Array(repeating: file, count: Frame.maximumDescriptors + 1))
        }
        if case .wire(let error)? = crowded { #expect(error.code == .messageTooLarge) } else { Issue.record("expected a wire error") }

        #expect(try await client.call { .ping(Call($0)) }.message.name == "Pong")
    }

    @Test func theKernelNamesThePeer() throws {
        let (left, right) = try UnixSocket.pair()
        let connection = Connection(socket: left, name: "peer")
        defer { connection.close(); right.close() }
        #expect(try connection.peerCredentials() == .current)
        #expect(try connection.peerProcess().processID == getpid())
        #expect(connection.description == "connection to peer")
        #expect(connection.closure == nil)
    }
}
