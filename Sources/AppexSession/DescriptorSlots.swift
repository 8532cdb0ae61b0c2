public import AppexSystem
public import AppexWire

/// The descriptors one outgoing frame carries, in slot order.
///
/// A frame holds at most ``Frame/maximumDescriptors``; adding one more throws an error that
/// says so, rather than building a frame the peer would refuse.
public struct DescriptorSlots: Sendable {
    /// The descriptors, slot 0 first.
    public private(set) var descriptors: [FileDescriptor] = []

    public init() {}

    /// Adds `descriptor` and returns its slot. `what` names the attachment, for the error.
    public mutating func add(_ descriptor: FileDescriptor, for what: @autoclosure () -> String) throws(ErrorInfo) -> Int {
        guard descriptors.count < Frame.maximumDescriptors else {
            throw AppexErrorDomain.runtimeError(
                9, "\(what()) would be descriptor \(descriptors.count + 1) of one message, which carries at most \(Frame.maximumDescriptors)",
                recovery: "Return fewer files or large attachments at once, or pack them into one archive.")
        }
        descriptors.append(descriptor)
        return descriptors.count - 1
    }
}
