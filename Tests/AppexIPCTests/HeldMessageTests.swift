import AppexIPC
import AppexSystem
import AppexWire
import Foundation
import Testing

/// A one-way message sent `within` a delay waits for the connection's next message and goes
/// out first, in order, or alone once its delay has passed, or before a local close.
@Suite(.timeLimit(.minutes(1))) struct HeldMessageTests {
    /// A client connection, and the raw far end of it.
    func connected() throws -> (client: Connection, peer: RawPeer) {
        let (left, right) = try UnixSocket.pair()
        return (startClient(left).0, RawPeer(right))
    }

    func ended(_ requestNumber: UInt8) -> WireMessage {
        .endRequest(RequestReference(UUID(uuid: (requestNumber, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
    }

    @Test func aHeldMessageGoesOutFirstWithTheNextOne() async throws {
        let (client, peer) = try connected()
        defer { client.close(); peer.socket.close() }

        try client.send(ended(1), within: .seconds(30))
        try client.send(ended(2), within: .seconds(30))
        #expect(try !UnixSocket.waitForInput(peer.socket, timeout: .milliseconds(200)), "held messages went out at once")

        try client.send(.ping(Call(3)))
        #expect(try await peer.receive()?.message == ended(1))
        #expect(try await peer.receive()?.message == ended(2))
        #expect(try await peer.receive()?.message == .ping(Call(3)))
    }

    @Test func aHeldMessageGoesOutAloneOnceItsDelayHasPassed() async throws {
        let (client, peer) = try connected()
        defer { client.close(); peer.socket.close() }

        try client.send(ended(1), within: .milliseconds(20))
        #expect(try await peer.receive()?.message == ended(1))
        // The next one is held again, and flushed again.
        try client.send(ended(2), within: .milliseconds(20))
        #expect(try await peer.receive()?.message == ended(2))
    }

    @Test func aMessageWithDescriptorsKeepsThemAfterHeldOnes() async throws {
        let (client, peer) = try connected()
        defer { client.close(); peer.socket.close() }

        try client.send(ended(1), within: .seconds(30))
        let file = try memoryFile("slot 0")
        try client.send(.ping(Call(2)), descriptors: [file])
        file.close()
        let held = try #require(try await peer.receive())
        #expect(held.message == ended(1))
        #expect(held.descriptors.isEmpty)
        let carrying = try #require(try await peer.receive())
        #expect(carrying.message == .ping(Call(2)))
        #expect(try carrying.descriptors.map(contents) == ["slot 0"])
    }

    @Test func aLocalCloseSendsWhatIsHeldFirst() async throws {
        let (client, peer) = try connected()
        defer { peer.socket.close() }

        try client.send(ended(1), within: .seconds(30))
        client.close()
        #expect(try await peer.receive()?.message == ended(1))
        #expect(try await peer.receive() == nil)
    }

    @Test func aClosedConnectionHoldsNothing() throws {
        let (client, peer) = try connected()
        defer { peer.socket.close() }

        client.close()
        #expect(throws: ConnectionError.self) { try client.send(ended(1), within: .seconds(30)) }
    }
}
