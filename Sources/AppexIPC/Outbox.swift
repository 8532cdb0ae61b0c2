/// The frames of one-way messages a connection lets wait, so that they go out with its next
/// message, in the same write, and the peer reads them on one wake-up. A flush sends them
/// alone once their delay has passed, if no message came to carry them.
///
/// Guarded by the connection's send lock, which keeps them in order with every other send.
struct Outbox {
    /// The waiting frames, whole and in order.
    private var frames: [UInt8] = []
    /// Whether a flush is on its way.
    private var flushScheduled = false

    /// Keeps `frame` to go out later; returns whether a flush must be scheduled for it.
    mutating func hold(_ frame: [UInt8]) -> Bool {
        frames += frame
        defer { flushScheduled = true }
        return !flushScheduled
    }

    /// The waiting frames, which the caller sends now.
    mutating func take() -> [UInt8] {
        let taken = frames
        frames = []
        return taken
    }

    /// The flush has come: the waiting frames, which the caller sends now.
    mutating func takeForFlush() -> [UInt8] {
        flushScheduled = false
        return take()
    }
}
