/// Why bytes from a peer could not be read as Appex wire messages: what was wrong, and where.
///
/// The offset counts bytes from the start of the connection's stream for framing errors,
/// and from the start of the frame's payload for message errors.
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is. Codes can grow without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        /// The frame header announces a payload larger than ``Frame/maximumPayloadSize``.
        public static let frameTooLarge = Code(name: "frameTooLarge")
        /// A frame announces more descriptors than arrived with it, or than a frame may carry.
        public static let descriptorMismatch = Code(name: "descriptorMismatch")
        /// A header's reserved flags are set.
        public static let reservedBits = Code(name: "reservedBits")
        /// The frame's type is not one this protocol version defines.
        public static let unknownMessageType = Code(name: "unknownMessageType")
        /// The payload ends in the middle of a field.
        public static let truncated = Code(name: "truncated")
        /// A varint is longer than 10 bytes, or a field's wire type is not the schema's.
        public static let malformedField = Code(name: "malformedField")
        /// A string field is not UTF-8.
        public static let invalidUTF8 = Code(name: "invalidUTF8")
        /// Messages nest deeper than ``ProtoReader/maximumDepth``.
        public static let tooDeep = Code(name: "tooDeep")
        /// A field the schema requires is absent or out of range.
        public static let invalidValue = Code(name: "invalidValue")
        /// The first frame was not a valid handshake, or the versions have nothing in common.
        public static let handshake = Code(name: "handshake")
        /// A message arrived that this side of the channel never accepts.
        public static let unexpectedMessage = Code(name: "unexpectedMessage")
        /// A message would be larger than a frame may carry.
        public static let messageTooLarge = Code(name: "messageTooLarge")
        /// A frame began, and the rest of it did not come within the reader's deadline.
        public static let incompleteFrame = Code(name: "incompleteFrame")
        /// The peer holds more descriptors in frames it has not finished than the reader
        /// allows it, or than all its peers may hold together.
        public static let descriptorLimit = Code(name: "descriptorLimit")

        public var description: String { name }
    }

    public var code: Code
    /// Where in the stream or payload the problem is.
    public var offset: Int
    /// One line saying what was wrong.
    public var message: String

    public init(_ code: Code, at offset: Int, _ message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String { "protocol error (\(code)) at byte \(offset): \(message)" }
}
