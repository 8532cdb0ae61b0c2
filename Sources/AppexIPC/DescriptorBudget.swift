import AppexLocking
import AppexWire

/// The descriptors a process holds for its untrusted peers in frames they have begun and not
/// finished: bounded for each peer process, and for all of them together.
///
/// Descriptors travel with a frame's first bytes, so a peer that begins frames with 64 of
/// them and never finishes makes the reader hold them until the frame's deadline. Four local
/// processes doing so on 120 connections each took appexd to 19,999 of its 20,000
/// descriptors, and every request failed. With a budget, a connection whose process holds
/// more than ``perPeer`` is refused; and when all peers together hold more than ``total``,
/// the connection holding the most is refused, so a well-behaved peer's frame, which holds a
/// few descriptors for a moment, still goes through.
///
/// ```swift
/// let budget = DescriptorBudget(perPeer: 256, total: 4096)
/// let connection = Connection(socket: socket, name: "client",
///                             untrusted: UntrustedPeer(frameDeadline: .seconds(10), descriptors: budget.account(for: pid)))
/// ```
public final class DescriptorBudget: Sendable {
    /// The most descriptors one peer process may have held in its unfinished frames.
    public let perPeer: Int
    /// The most all peers together may have held.
    public let total: Int
    private let state = Locked(State())

    private struct State {
        /// Each connection's unfinished descriptors, with its peer and how to refuse it.
        var held: [ObjectIdentifier: (peer: Int32, count: Int, refuse: @Sendable (WireError) -> Void)] = [:]
        var byPeer: [Int32: Int] = [:]
        var total = 0

        /// Takes `connection`'s descriptors off the books.
        mutating func forget(_ connection: ObjectIdentifier) {
            guard let entry = held.removeValue(forKey: connection) else { return }
            byPeer[entry.peer, default: 0] -= entry.count
            if byPeer[entry.peer] == 0 { byPeer[entry.peer] = nil }
            total -= entry.count
        }
    }

    public init(perPeer: Int, total: Int) {
        self.perPeer = perPeer
        self.total = total
    }

    /// The account of the peer process `peer` (its pid), for its connections to report to.
    public func account(for peer: Int32) -> Account {
        Account(budget: self, peer: peer)
    }

    /// One peer process's share of a ``DescriptorBudget``.
    public struct Account: Sendable {
        let budget: DescriptorBudget
        let peer: Int32
    }

    /// The descriptors all peers hold now, for tests and logs.
    public var held: Int { state.withLock { $0.total } }

    /// Records that `connection` holds `count` descriptors in unfinished frames. Returns why
    /// it must be refused, if its peer is then over its share; if all peers together are over
    /// the total, refuses the connection that holds the most (perhaps this one) with
    /// `refuse`, which each connection gives with its first count.
    func hold(_ count: Int, by connection: ObjectIdentifier, of peer: Int32, refuse: @escaping @Sendable (WireError) -> Void,
              offset: Int) -> WireError? {
        let (own, evicted): (WireError?, [(@Sendable (WireError) -> Void, WireError)]) = state.withLock { state in
            let previous = state.held[connection]?.count ?? 0
            state.held[connection] = count == 0 ? nil : (peer, count, refuse)
            state.byPeer[peer, default: 0] += count - previous
            if state.byPeer[peer] == 0 { state.byPeer[peer] = nil }
            state.total += count - previous
            let peerHolds = state.byPeer[peer] ?? 0
            if count > previous, peerHolds > perPeer {
                // Refused, so closed with its descriptors: they leave the books now, not when the
                // connection gets round to closing, lest they push the total over and evict a
                // connection within its share.
                state.forget(connection)
                return (WireError(.descriptorLimit, at: offset, "process \(peer) holds \(peerHolds) descriptors in frames it has not finished, "
                                  + "more than the \(perPeer) one process may"), [])
            }
            var evicted: [(@Sendable (WireError) -> Void, WireError)] = []
            while state.total > total, let heaviest = state.held.max(by: { $0.value.count < $1.value.count }) {
                state.forget(heaviest.key)
                evicted.append((heaviest.value.refuse, WireError(
                    .descriptorLimit, at: 0, "it held \(heaviest.value.count) descriptors in a frame it had not finished while all peers held more than "
                        + "the \(total) allowed together; it held the most")))
            }
            return (nil, evicted)
        }
        for (refuse, error) in evicted { refuse(error) }
        return own
    }
}
