import AppexIPC
import AppexLocking
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Testing

/// A connection to a peer it doesn't trust (appexd's clients and extensions): a frame that
/// lies about its length can't hold the reader past the frame deadline, frames that take
/// turns arriving in pieces are never cut off, and the peer is told why it was closed.
@Suite(.timeLimit(.minutes(1))) struct UntrustedPeerTests {
    static let deadline = Duration.milliseconds(800)

    /// A connection guarding against `peer`'s end of a new pair, counting what it handles.
    func guarded() throws -> (Connection, RawPeer, Inbox<ConnectionClosure>, Tally) {
        let (left, right) = try UnixSocket.pair()
        let handled = Tally()
        let closures = Inbox<ConnectionClosure>()
        let connection = Connection(socket: left, name: "untrusted", untrusted: UntrustedPeer(frameDeadline: Self.deadline))
        connection.start { _ in handled.add() } onClose: { closures.put($0) }
        return (connection, RawPeer(right), closures, handled)
    }

    @Test func aFrameAnnouncingMoreThanItSendsIsRefusedAtItsDeadlineAndThePeerIsToldWhy() async throws {
        let (connection, peer, closures, handled) = try guarded()
        defer { connection.close() }
        var lying = try WireMessage.ping(Call(1)).frameBytes(descriptorCount: 0)
        let payload = lying.count - Frame.headerSize
        lying[0] = UInt8(truncatingIfNeeded: payload + 1000)
        lying[1] = UInt8(truncatingIfNeeded: (payload + 1000) >> 8)
        let began = ContinuousClock.now
        try peer.write(lying)

        let closure = await closures.next()
        let waited = ContinuousClock.now - began
        guard case .protocolError(let error)? = closure else {
            Issue.record("expected a protocol error, got \(String(describing: closure))")
            return
        }
        #expect(error.code == .incompleteFrame && error.message.contains("\(lying.count) bytes of a frame came"), "\(error)")
        #expect(waited >= Self.deadline, "not before the deadline: \(waited)")
        #expect(handled.count == 0)
        guard case .failure(let refusal)? = try await peer.receive()?.message else {
            Issue.record("the peer was not told why")
            return
        }
        #expect(refusal.error.domain == AppexErrorDomain.runtime && refusal.error.code == 7)
        #expect(refusal.error.message.contains("incompleteFrame") && refusal.error.message.contains("the connection is closed"), "\(refusal.error.message)")
        #expect(try await peer.receive() == nil, "then the connection closes")
    }

    @Test func framesArrivingInPiecesForLongerThanTheDeadlineAreEachInTime() async throws {
        let (connection, peer, closures, handled) = try guarded()
        defer { connection.close() }
        // Each write finishes one frame and begins the next: the connection always holds
        // part of a frame, for longer than the deadline, but no frame for more than 0.1 s.
        // (Paced on a thread of its own: tasks can wait their turn for longer than the
        // deadline when the machine is busy.)
        let frame = try WireMessage.ping(Call(7)).frameBytes(descriptorCount: 0)
        let half = frame.count / 2
        try await onThread {
            try peer.write(Array(frame[..<half]))
            for _ in 0..<10 {
                Thread.sleep(forTimeInterval: 0.1)
                try peer.write(Array(frame[half...]) + Array(frame[..<half]))
            }
            try peer.write(Array(frame[half...]))
        }
        #expect(await eventually { handled.count == 11 }, "\(handled.count) handled")
        #expect(connection.closure == nil, "\(String(describing: connection.closure))")
        connection.close()
        #expect(await closures.next() == .closedLocally)
    }

    @Test func aTrustedConnectionWaitsForTheRestOfAFrame() async throws {
        let (left, right) = try UnixSocket.pair()
        let handled = Tally()
        let connection = Connection(socket: left, name: "trusted")
        connection.start { _ in handled.add() }
        defer { connection.close() }
        let peer = RawPeer(right)
        let frame = try WireMessage.ping(Call(1)).frameBytes(descriptorCount: 0)
        try peer.write(Array(frame.prefix(5)))
        try await Task.sleep(for: Self.deadline * 2)
        #expect(connection.closure == nil, "a host's connection to appexd has no frame deadline")
        try peer.write(Array(frame.dropFirst(5)))
        #expect(await eventually { handled.count == 1 })
    }
}

/// How many messages a connection handled.
final class Tally: Sendable {
    private let value = Locked(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
