import AppexSystem
import AppexWire

/// What a connection has read of its peer's stream and not yet delivered: the start of the
/// next frame, and the descriptors that came with it.
struct Inbound {
    /// The most bytes one read takes.
    static let readSize = 65_536

    var decoder = FrameDecoder()
    /// Descriptors that came before the frame that carries them is whole.
    var received: [FileDescriptor] = []
    /// When the first byte of the frame not yet whole came, for an untrusted peer's deadline.
    var frameBegan: ContinuousClock.Instant?
    /// How many of `received` count against the peer's share of descriptors.
    var held = 0
}
