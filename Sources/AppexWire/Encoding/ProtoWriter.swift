/// Writes fields in the protocol-buffers binary encoding (proto3), so that any language's
/// protobuf library can read Appex messages from the schema in docs/wire.proto.
public struct ProtoWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// The wire types of the encoding.
    enum WireType: UInt8 {
        case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5
    }

    mutating func tag(_ field: Int, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// An unsigned integer field (`uint32`, `uint64`); zero is left out, as proto3 does,
    /// unless `always` (for `optional` fields).
    public mutating func uint(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard always || value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// A signed integer field (`sint64`, zigzag-encoded); zero is left out unless `always`.
    public mutating func sint(_ field: Int, _ value: Int64, always: Bool = false) {
        guard always || value != 0 else { return }
        tag(field, .varint)
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A boolean field; false is left out unless `always`.
    public mutating func bool(_ field: Int, _ value: Bool, always: Bool = false) {
        guard always || value else { return }
        tag(field, .varint)
        varint(value ? 1 : 0)
    }

    /// A `double` field; positive zero is left out unless `always`.
    public mutating func double(_ field: Int, _ value: Double, always: Bool = false) {
        guard always || value != 0 || value.sign == .minus else { return }
        tag(field, .fixed64)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A `string` field; an empty string is left out unless `always`.
    public mutating func string(_ field: Int, _ value: String, always: Bool = false) {
        guard always || !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        var value = value
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// An optional `string` field: present (even empty) when not nil.
    public mutating func string(_ field: Int, _ value: String?) {
        if let value { string(field, value, always: true) }
    }

    /// A `bytes` field; empty is left out unless `always`.
    public mutating func bytes(_ field: Int, _ value: some Collection<UInt8>, always: Bool = false) {
        guard always || !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// An embedded message field, always present.
    public mutating func message(_ field: Int, _ body: (inout ProtoWriter) -> Void) {
        tag(field, .lengthDelimited)
        var nested = ProtoWriter()
        body(&nested)
        varint(UInt64(nested.bytes.count))
        bytes.append(contentsOf: nested.bytes)
    }

    /// An embedded message field holding `value`.
    public mutating func message(_ field: Int, _ value: some ProtoMessage) {
        message(field) { value.encode(to: &$0) }
    }

    /// An optional embedded message field, left out when nil.
    public mutating func message(_ field: Int, _ value: (some ProtoMessage)?) {
        if let value { message(field, value) }
    }

    /// A repeated embedded message field.
    public mutating func messages(_ field: Int, _ values: [some ProtoMessage]) {
        for value in values { message(field, value) }
    }

    /// A repeated `string` field.
    public mutating func strings(_ field: Int, _ values: [String]) {
        for value in values { string(field, value, always: true) }
    }
}

/// A message in the Appex schema, encoded and decoded in the protobuf binary format.
public protocol ProtoMessage: Sendable {
    /// Writes the message's fields.
    func encode(to writer: inout ProtoWriter)
    /// Reads the message's fields; unknown fields are skipped, as protobuf requires.
    init(from reader: inout ProtoReader) throws(WireError)
}

extension ProtoMessage {
    /// The message's encoding.
    public func encoded() -> [UInt8] {
        var writer = ProtoWriter()
        encode(to: &writer)
        return writer.bytes
    }

    /// Decodes a whole payload.
    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        var reader = ProtoReader(bytes)
        try self.init(from: &reader)
    }
}
