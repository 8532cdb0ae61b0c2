import AppexIPC
import AppexSystem
import AppexWire
import Foundation
import Testing

/// A connection read on the event loop (``ConnectionReading/eventLoop``), as appexd reads its
/// clients: frames arrive in order whatever their size, and every way the connection ends
/// reaches `onClose` at once, the peer's hang-up above all, which an idle client's socket
/// shows with no bytes at all.
@Suite(.timeLimit(.minutes(1))) struct EventLoopReadingTests {
    /// A connection read on the event loop, whose messages and closure land in the inboxes,
    /// and the raw far end of it.
    func connected() throws -> (connection: Connection, peer: RawPeer, messages: Inbox<IncomingMessage>, closures: Inbox<ConnectionClosure>) {
        let (left, right) = try UnixSocket.pair()
        let messages = Inbox<IncomingMessage>()
        let closures = Inbox<ConnectionClosure>()
        let connection = Connection(socket: left, name: "client")
        connection.start(reading: .eventLoop) { messages.put($0) } onClose: { closures.put($0) }
        return (connection, RawPeer(right), messages, closures)
    }

    @Test func framesOfEverySizeArriveInOrder() async throws {
        let (connection, peer, messages, _) = try connected()
        defer { connection.close(); peer.socket.close() }

        let points = (0..<50).map { String(repeating: "p", count: $0 * 4_000) }
        for (index, point) in points.enumerated() {
            try peer.send(.queryExtensions(QueryExtensions(call: UInt64(index), point: point)))
        }
        for (index, point) in points.enumerated() {
            let incoming = try #require(await messages.next())
            #expect(incoming.message == .queryExtensions(QueryExtensions(call: UInt64(index), point: point)))
        }
    }

    @Test func aPeerThatHangsUpAfterTalkingEndsTheConnection() async throws {
        let (connection, peer, messages, closures) = try connected()
        defer { connection.close() }

        try peer.send(.ping(Call(1)))
        #expect(try #require(await messages.next()).message == .ping(Call(1)))
        try await Task.sleep(for: .milliseconds(20))  // the reader is waiting again
        peer.socket.close()
        #expect(try #require(await closures.next()) == .endOfStream)
    }

    /// As an extension does that writes its last words and exits: the bytes and the hang-up
    /// come together, more than one read takes, and libdispatch stops watching a socket once
    /// it has seen the hang-up, so the reader must read on to the end by itself.
    @Test func aPeerThatSendsMuchAndHangsUpAtOnceIsReadToTheEnd() async throws {
        let (left, right) = try UnixSocket.pair()
        let peer = RawPeer(right)
        // 80 KB: more than one read takes, and less than the socket holds unread.
        let points = (0..<8).map { String(repeating: "\($0)", count: 10_000) }
        for (index, point) in points.enumerated() {
            try peer.send(.queryExtensions(QueryExtensions(call: UInt64(index), point: point)))
        }
        peer.socket.close()

        let messages = Inbox<IncomingMessage>()
        let closures = Inbox<ConnectionClosure>()
        let connection = Connection(socket: left, name: "client")
        connection.start(reading: .eventLoop) { messages.put($0) } onClose: { closures.put($0) }
        defer { connection.close() }
        for (index, point) in points.enumerated() {
            #expect(try #require(await messages.next()).message == .queryExtensions(QueryExtensions(call: UInt64(index), point: point)))
        }
        #expect(try #require(await closures.next()) == .endOfStream)
    }

    @Test func aPeerThatHangsUpWithoutAWordEndsTheConnection() async throws {
        let (connection, peer, _, closures) = try connected()
        defer { connection.close() }

        peer.socket.close()
        #expect(try #require(await closures.next()) == .endOfStream)
    }

    @Test func aLocalCloseEndsTheConnection() async throws {
        let (connection, peer, _, closures) = try connected()
        defer { peer.socket.close() }

        connection.close()
        #expect(try #require(await closures.next()) == .closedLocally)
        #expect(try await peer.receive() == nil)
    }

    @Test func twoHundredPeersThatHangUpAreAllSeenToGo() async throws {
        let all = try (0..<200).map { _ in try connected() }
        for (_, peer, _, _) in all {
            try peer.send(.ping(Call(1)))
        }
        for (_, _, messages, _) in all {
            _ = await messages.next()
        }
        try await Task.sleep(for: .milliseconds(20))
        for (_, peer, _, _) in all { peer.socket.close() }
        for (connection, _, _, closures) in all {
            #expect(try #require(await closures.next()) == .endOfStream)
            connection.close()
        }
    }
}
