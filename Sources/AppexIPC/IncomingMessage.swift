public import AppexSystem
public import AppexWire

/// A message as it arrived: the decoded message and the descriptors in its slots.
///
/// The descriptors are the receiver's to keep or close; any left are closed when the
/// last reference goes.
public struct IncomingMessage: Sendable {
    public var message: WireMessage
    public var descriptors: [FileDescriptor]

    public init(message: WireMessage, descriptors: [FileDescriptor] = []) {
        self.message = message
        self.descriptors = descriptors
    }

    /// The descriptor in `slot`, or nil if the frame carried none there.
    public func descriptor(at slot: Int) -> FileDescriptor? {
        descriptors.indices.contains(slot) ? descriptors[slot] : nil
    }
}
