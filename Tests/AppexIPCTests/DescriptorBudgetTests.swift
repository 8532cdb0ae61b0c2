@testable import AppexIPC
import AppexLocking
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Testing

/// The descriptors untrusted peers' unfinished frames make a reader hold are bounded for each
/// peer process and for all together: past its share a connection is refused, and past the
/// total the connection holding the most is, so a peer holding a few goes through.
@Suite(.timeLimit(.minutes(1))) struct DescriptorBudgetTests {
    /// A connection that guards against the other end of a new pair as peer `process`'s, with
    /// `budget`.
    func guarded(by budget: DescriptorBudget, process: Int32) throws -> (Connection, RawPeer, Inbox<ConnectionClosure>) {
        let (left, right) = try UnixSocket.pair()
        let closures = Inbox<ConnectionClosure>()
        let connection = Connection(socket: left, name: "peer \(process)",
                                    untrusted: UntrustedPeer(frameDeadline: .seconds(30), descriptors: budget.account(for: process)))
        connection.start { _ in } onClose: { closures.put($0) }
        return (connection, RawPeer(right), closures)
    }

    /// The header of a frame announcing `count` descriptors, sent with them, and no more.
    func beginFrame(on peer: RawPeer, carrying count: Int) throws {
        let frame = try WireMessage.ping(Call(1)).frameBytes(descriptorCount: count)
        let null = try FileDescriptor.open("/dev/null")
        defer { null.close() }
        try peer.write(Array(frame.prefix(Frame.headerSize)), descriptors: Array(repeating: null, count: count))
    }

    @Test func aPeerPastItsShareIsRefusedWithWhyAndItsOtherConnectionGoesOn() async throws {
        let budget = DescriptorBudget(perPeer: 100, total: 1000)
        let (first, firstPeer, firstClosures) = try guarded(by: budget, process: 7)
        let (second, secondPeer, secondClosures) = try guarded(by: budget, process: 7)
        defer { first.close(); second.close() }
        try beginFrame(on: firstPeer, carrying: 64)
        #expect(await eventually { budget.held == 64 })
        try beginFrame(on: secondPeer, carrying: 64)
        guard case .protocolError(let error)? = await secondClosures.next() else {
            Issue.record("the second connection was not refused")
            return
        }
        #expect(error.code == .descriptorLimit, "\(error)")
        #expect(error.message.contains("process 7 holds 128 descriptors in frames it has not finished, more than the 100 one process may"), "\(error)")
        guard case .failure(let refusal)? = try await secondPeer.receive()?.message else {
            Issue.record("the peer was not told why")
            return
        }
        #expect(refusal.error.code == 7 && refusal.error.message.contains("descriptorLimit"), "\(refusal.error.message)")
        #expect(await eventually { budget.held == 64 }, "the refused connection's descriptors were let go: \(budget.held)")
        #expect(first.closure == nil)
        #expect(firstClosures.delivered.isEmpty)
    }

    /// A refused connection's descriptors leave the books as it is refused, not when it gets
    /// round to closing: counted meanwhile, under load, they once pushed the total over and
    /// evicted another process's connection within its share (DescriptorFloodTests in a full run).
    @Test func aRefusedConnectionsDescriptorsStopCountingAtOnce() {
        let budget = DescriptorBudget(perPeer: 100, total: 150)
        final class Connection {}
        let (first, second, other) = (Connection(), Connection(), Connection())
        let refusals = Locked(0)
        let refuse: @Sendable (WireError) -> Void = { _ in refusals.withLock { $0 += 1 } }
        #expect(budget.hold(64, by: ObjectIdentifier(first), of: 7, refuse: refuse, offset: 0) == nil)
        #expect(budget.hold(64, by: ObjectIdentifier(second), of: 7, refuse: refuse, offset: 0)?.code == .descriptorLimit)
        #expect(budget.held == 64, "the refused connection's 64 no longer count")
        #expect(budget.hold(64, by: ObjectIdentifier(other), of: 8, refuse: refuse, offset: 0) == nil, "another process's share fits")
        #expect(refusals.withLock { $0 } == 0, "and no connection within its share was evicted")
        #expect(budget.hold(0, by: ObjectIdentifier(second), of: 7, refuse: refuse, offset: 0) == nil)
        #expect(budget.held == 128, "the refused connection's close changes nothing")
        withExtendedLifetime((first, second, other)) {}
    }

    @Test func pastTheTotalTheConnectionHoldingTheMostIsRefusedAndTheSmallerOneGoesOn() async throws {
        let budget = DescriptorBudget(perPeer: 100, total: 80)
        let (heavy, heavyPeer, heavyClosures) = try guarded(by: budget, process: 1)
        let (light, lightPeer, lightClosures) = try guarded(by: budget, process: 2)
        defer { heavy.close(); light.close() }
        try beginFrame(on: heavyPeer, carrying: 64)
        #expect(await eventually { budget.held == 64 })
        try beginFrame(on: lightPeer, carrying: 20)
        guard case .protocolError(let error)? = await heavyClosures.next() else {
            Issue.record("the heavier connection was not refused")
            return
        }
        #expect(error.code == .descriptorLimit && error.message.contains("it held the most"), "\(error)")
        #expect(await eventually { budget.held == 20 }, "\(budget.held)")
        #expect(light.closure == nil)
        #expect(lightClosures.delivered.isEmpty)
        // The lighter peer finishes its frame, and it is handled as usual.
        let frame = try WireMessage.ping(Call(1)).frameBytes(descriptorCount: 20)
        try lightPeer.write(Array(frame.dropFirst(Frame.headerSize)))
        #expect(await eventually { budget.held == 0 }, "a whole frame's descriptors leave the budget: \(budget.held)")
    }
}
