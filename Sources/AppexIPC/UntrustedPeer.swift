/// How a ``Connection`` treats a peer it does not trust, as appexd treats its clients: a
/// frame begun must be whole within `frameDeadline`, or the connection closes, so that a
/// frame lying about its length can't hold the reader; and a peer whose bytes break the
/// protocol is told what was wrong (a `Failure`, ``AppexErrorDomain/runtime`` code 7)
/// before the connection closes, instead of meeting a bare close; and the descriptors its
/// unfinished frames hold count against a ``DescriptorBudget``.
public struct UntrustedPeer: Sendable {
    /// How long the rest of a frame may take once its first byte has come.
    public var frameDeadline: Duration
    /// The peer process's share of the descriptors its frames may hold before they are whole,
    /// or nil for no bound but the frame's own (64).
    public var descriptors: DescriptorBudget.Account?

    public init(frameDeadline: Duration, descriptors: DescriptorBudget.Account? = nil) {
        self.frameDeadline = frameDeadline
        self.descriptors = descriptors
    }
}
