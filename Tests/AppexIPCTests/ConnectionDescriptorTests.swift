import AppexIPC
import AppexSystem
import AppexWire
import Foundation
import Testing

/// Descriptors sent with a message arrive in its slots, in order, with that message only.
@Suite(.timeLimit(.minutes(1))) struct ConnectionDescriptorTests {
    /// A client, and a server that keeps every message it gets in the inbox.
    func connectedToRecorder() throws -> (client: Connection, server: Connection, inbox: Inbox<IncomingMessage>) {
        let (left, right) = try UnixSocket.pair()
        let inbox = Inbox<IncomingMessage>()
        let server = Connection(socket: right, name: "server")
        server.start { inbox.put($0) }
        return (startClient(left).0, server, inbox)
    }

    @Test func descriptorsArriveInTheirSlots() async throws {
        let (client, server, inbox) = try connectedToRecorder()
        defer { client.close(); server.close() }

        let files = try ["slot 0", "slot 1", "slot 2"].map(memoryFile)
        try client.send(.checkIn(CheckIn(bundleIdentifier: "com.example.x")), descriptors: files)
        files.forEach { $0.close() } // the peer has its own copies

        let incoming = try #require(await inbox.next())
        #expect(incoming.message == .checkIn(CheckIn(bundleIdentifier: "com.example.x")))
        #expect(incoming.descriptors.count == 3)
        for slot in 0..<3 {
            let file = try #require(incoming.descriptor(at: slot))
            #expect(try contents(of: file) == "slot \(slot)")
        }
        #expect(incoming.descriptor(at: 3) == nil)
        #expect(incoming.descriptor(at: -1) == nil)
    }

    @Test func consecutiveMessagesKeepTheirOwnDescriptors() async throws {
        let (client, server, inbox) = try connectedToRecorder()
        defer { client.close(); server.close() }

        let counts = [1, 0, 2, 0, 0, 3, 1, 64, 0, 1]
        for (index, count) in counts.enumerated() {
            let files = try (0..<count).map { try memoryFile("message \(index) slot \($0)") }
            try client.send(.ping(Call(UInt64(index))), descriptors: files)
        }
        for (index, count) in counts.enumerated() {
            let incoming = try #require(await inbox.next())
            #expect(incoming.message == .ping(Call(UInt64(index))))
            #expect(try incoming.descriptors.map(contents) == (0..<count).map { "message \(index) slot \($0)" })
        }
    }

    @Test func anAnswerCarriesItsDescriptors() async throws {
        // As appexd answers BeginRequest: RequestStarted, with the host's end of a new socket in slot 0.
        let (left, right) = try UnixSocket.pair()
        let (hostEnd, extensionEnd) = try UnixSocket.pair()
        let server = Connection(socket: right, name: "daemon")
        server.start { incoming in
            guard case .beginRequest(let begin) = incoming.message else { return }
            try? server.send(.requestStarted(RequestStarted(call: begin.call, requestID: begin.requestID, sessionID: 1,
                                                            pid: 42, isNewSession: true)), descriptors: [hostEnd])
            hostEnd.close()
        }
        let (client, _) = startClient(left)
        defer { client.close(); server.close() }

        let requestID = UUID()
        let answer = try await client.call { .beginRequest(BeginRequest(call: $0, requestID: requestID, extensionIdentifier: "x")) }
        guard case .requestStarted(let started) = answer.message else {
            Issue.record("expected RequestStarted, got \(answer.message.name)")
            return
        }
        #expect(started.requestID == requestID)
        let session = try #require(answer.descriptor(at: 0))
        try Array("over the session".utf8).withUnsafeBytes { try UnixSocket.send(session, $0) }
        var buffer = [UInt8](repeating: 0, count: 64)
        var none: [FileDescriptor] = []
        let count = try buffer.withUnsafeMutableBytes { try UnixSocket.receive(extensionEnd, into: $0, descriptors: &none) }
        #expect(String(decoding: buffer.prefix(count), as: UTF8.self) == "over the session")
    }
}
