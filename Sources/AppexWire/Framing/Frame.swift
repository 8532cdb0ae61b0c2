/// One message on the wire: an 8-byte header, then the payload.
///
/// ```
/// offset 0  uint32 LE  payload length, at most maximumPayloadSize
/// offset 4  uint16 LE  message type (MessageType)
/// offset 6  uint8      number of descriptors sent with the frame (SCM_RIGHTS), at most 64
/// offset 7  uint8      flags, reserved: must be 0
/// offset 8  payload    the message, protobuf-encoded (docs/wire.proto)
/// ```
///
/// Descriptors ride out of band with the frame's first bytes. A frame's descriptors are
/// its slots 0, 1, …: messages refer to them by slot.
public struct Frame: Sendable, Hashable {
    /// The header's size in bytes.
    public static let headerSize = 8
    /// The largest payload a frame may carry: 1 MiB. Bigger data travels as a descriptor.
    public static let maximumPayloadSize = 1 << 20
    /// The most descriptors one frame may carry.
    public static let maximumDescriptors = 64

    /// The message type from the header.
    public var type: UInt16
    /// How many descriptors came with the frame.
    public var descriptorCount: Int
    /// The encoded message.
    public var payload: ArraySlice<UInt8>

    public init(type: UInt16, descriptorCount: Int = 0, payload: ArraySlice<UInt8>) {
        self.type = type
        self.descriptorCount = descriptorCount
        self.payload = payload
    }

    /// The frame's bytes: header and payload.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize + payload.count)
        let length = UInt32(payload.count)
        bytes += [UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
                  UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 24),
                  UInt8(truncatingIfNeeded: type), UInt8(truncatingIfNeeded: type >> 8),
                  UInt8(descriptorCount), 0]
        bytes += payload
        return bytes
    }
}
