/// What appexd allows the connections of its clients, so that connections that never greet
/// it, or too many from one process, can't crowd out everyone else (docs/runtime.md,
/// "Connections"). A connection over a limit is told which, and closed.
public struct ClientLimits: Sendable {
    /// How long a new connection has to send `Hello`.
    public var handshakeDeadline: Duration
    /// The most connections that may wait for their handshake at once. One more closes the
    /// connection that has waited longest: a real client greets at once, so only a silent
    /// one is pushed out.
    public var waitingForHandshake: Int
    /// The most connections one process may hold at once, greeted or not.
    public var perProcess: Int
    /// How long the rest of a frame may take once its first byte has come: a frame that
    /// announces more bytes than it sends, and then silence, closes its connection.
    public var frameDeadline: Duration

    public init(handshakeDeadline: Duration = .seconds(10), waitingForHandshake: Int = 64, perProcess: Int = 128,
                frameDeadline: Duration = .seconds(10)) {
        self.handshakeDeadline = handshakeDeadline
        self.waitingForHandshake = waitingForHandshake
        self.perProcess = perProcess
        self.frameDeadline = frameDeadline
    }
}
