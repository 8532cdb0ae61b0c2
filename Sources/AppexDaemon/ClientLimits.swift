/// What appexd allows the connections of its clients, so that connections that never greet
/// it, or too many from one process, can't crowd out everyone else (docs/runtime.md,
/// "Connections"). A connection over a limit is told which, and closed.
public struct ClientLimits: Sendable {
    /// How long a new connection has to send `Hello`.
    public var handshakeDeadline: Duration
    /// The most connections that may wait for their handshake at once having sent nothing.
    /// One more closes the silent connection that has waited longest: a real client greets
    /// at once, so only a silent one is pushed out, even while a burst of greetings waits
    /// to be read.
    public var waitingForHandshake: Int
    /// The most connections one process may hold at once, greeted or not.
    public var perProcess: Int
    /// How long the rest of a frame may take once its first byte has come: a frame that
    /// announces more bytes than it sends, and then silence, closes its connection.
    public var frameDeadline: Duration
    /// The most descriptors one process's unfinished frames may hold in appexd, across all
    /// its connections: descriptors arrive with a frame's first bytes, and stay until the
    /// frame is whole or its deadline passes.
    public var descriptorsPerProcess: Int
    /// The most descriptors all clients' and extensions' unfinished frames may hold together,
    /// or nil for a quarter of appexd's open-file limit (at most 8,192). Past it, the
    /// connection holding the most is closed.
    public var descriptorsInFlight: Int?
    /// The descriptors appexd keeps for its own work (launching extensions, the registry, the
    /// log), or nil for an eighth of its open-file limit (at most 1,024): a connection that
    /// would leave it fewer is refused as it arrives, and told why.
    public var reservedDescriptors: Int?

    public init(handshakeDeadline: Duration = .seconds(10), waitingForHandshake: Int = 64, perProcess: Int = 128,
                frameDeadline: Duration = .seconds(10), descriptorsPerProcess: Int = 256, descriptorsInFlight: Int? = nil,
                reservedDescriptors: Int? = nil) {
        self.handshakeDeadline = handshakeDeadline
        self.waitingForHandshake = waitingForHandshake
        self.perProcess = perProcess
        self.frameDeadline = frameDeadline
        self.descriptorsPerProcess = descriptorsPerProcess
        self.descriptorsInFlight = descriptorsInFlight
        self.reservedDescriptors = reservedDescriptors
    }

    /// The descriptors all unfinished frames may hold together under `openFileLimit`.
    func descriptorsInFlight(openFileLimit: Int) -> Int {
        descriptorsInFlight ?? max(64, min(8192, openFileLimit / 4))
    }

    /// The descriptors kept for appexd's own work under `openFileLimit`.
    func reservedDescriptors(openFileLimit: Int) -> Int {
        reservedDescriptors ?? max(32, min(1024, openFileLimit / 8))
    }
}
