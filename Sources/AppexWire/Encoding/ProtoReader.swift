/// Reads fields in the protocol-buffers binary encoding, refusing anything malformed with a
/// ``WireError`` that gives the byte offset. It never traps and never reads out of bounds,
/// whatever the bytes, so it can be fed hostile input directly.
public struct ProtoReader: Sendable {
    /// How deep embedded messages may nest.
    public static let maximumDepth = 64

    /// One field's key: its number and how its value is encoded.
    public struct Field: Sendable, Hashable {
        public let number: Int
        let wireType: UInt8
        /// Where the field's key starts, from the start of the payload.
        public let offset: Int
    }

    private let bytes: ArraySlice<UInt8>
    private var index: Int
    private let depth: Int
    /// The offset of `bytes.startIndex` from the start of the payload.
    private let origin: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.init(bytes, depth: 0, origin: bytes.startIndex)
    }

    private init(_ bytes: ArraySlice<UInt8>, depth: Int, origin: Int) {
        self.bytes = bytes
        self.index = bytes.startIndex
        self.depth = depth
        self.origin = origin
    }

    /// The payload offset of the next byte.
    public var offset: Int { index - origin }

    /// The next field's key, or nil at the end of the message.
    public mutating func nextField() throws(WireError) -> Field? {
        guard index < bytes.endIndex else { return nil }
        let start = offset
        let key = try varint()
        let number = key >> 3
        guard number > 0, number <= 536_870_911 else {
            throw WireError(.malformedField, at: start, "field number \(number) is out of range")
        }
        let wireType = UInt8(key & 7)
        guard [0, 1, 2, 5].contains(wireType) else {
            throw WireError(.malformedField, at: start, "field \(number) has unsupported wire type \(wireType)")
        }
        return Field(number: Int(number), wireType: wireType, offset: start)
    }

    /// Skips a field this version doesn't know.
    public mutating func skip(_ field: Field) throws(WireError) {
        switch field.wireType {
        case 0: _ = try varint()
        case 1: _ = try take(8, for: field)
        case 2: _ = try lengthDelimited(field)
        default: _ = try take(4, for: field)
        }
    }

    /// An unsigned integer field.
    public mutating func uint(_ field: Field) throws(WireError) -> UInt64 {
        try expect(field, 0, "an integer")
        return try varint()
    }

    /// An unsigned integer field that must fit `T`.
    public mutating func uint<T: FixedWidthInteger & UnsignedInteger>(_ field: Field, as type: T.Type) throws(WireError) -> T {
        let value = try uint(field)
        guard let narrow = T(exactly: value) else {
            throw WireError(.invalidValue, at: field.offset, "field \(field.number) is \(value), more than \(T.max)")
        }
        return narrow
    }

    /// A zigzag-encoded signed integer field.
    public mutating func sint(_ field: Field) throws(WireError) -> Int64 {
        let raw = try uint(field)
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// A boolean field.
    public mutating func bool(_ field: Field) throws(WireError) -> Bool {
        try uint(field) != 0
    }

    /// A `double` field.
    public mutating func double(_ field: Field) throws(WireError) -> Double {
        try expect(field, 1, "a double")
        let raw = try take(8, for: field)
        var bits: UInt64 = 0
        for (shift, byte) in raw.enumerated() { bits |= UInt64(byte) << (8 * UInt64(shift)) }
        return Double(bitPattern: bits)
    }

    /// A `string` field, which must be UTF-8.
    public mutating func string(_ field: Field) throws(WireError) -> String {
        let raw = try lengthDelimited(field)
        guard let string = String(validating: raw, as: UTF8.self) else {
            throw WireError(.invalidUTF8, at: field.offset, "field \(field.number) is not valid UTF-8")
        }
        return string
    }

    /// A `bytes` field.
    public mutating func bytes(_ field: Field) throws(WireError) -> ArraySlice<UInt8> {
        try lengthDelimited(field)
    }

    /// An embedded message field.
    public mutating func message<M: ProtoMessage>(_ field: Field, as type: M.Type = M.self) throws(WireError) -> M {
        let raw = try lengthDelimited(field)
        guard depth < Self.maximumDepth else {
            throw WireError(.tooDeep, at: field.offset, "messages nest more than \(Self.maximumDepth) deep")
        }
        var nested = ProtoReader(raw, depth: depth + 1, origin: origin)
        return try M(from: &nested)
    }

    /// Throws the error for a required field that never came.
    public func missing(_ name: String, in message: String) -> WireError {
        WireError(.invalidValue, at: offset, "\(message) has no \(name)")
    }

    private mutating func expect(_ field: Field, _ wireType: UInt8, _ what: String) throws(WireError) {
        guard field.wireType == wireType else {
            throw WireError(.malformedField, at: field.offset, "field \(field.number) should be \(what) (wire type \(wireType)), not wire type \(field.wireType)")
        }
    }

    private mutating func lengthDelimited(_ field: Field) throws(WireError) -> ArraySlice<UInt8> {
        try expect(field, 2, "length-delimited")
        let length = try varint()
        guard length <= UInt64(bytes.endIndex - index) else {
            throw WireError(.truncated, at: field.offset, "field \(field.number) claims \(length) bytes, but only \(bytes.endIndex - index) remain")
        }
        return try take(Int(length), for: field)
    }

    private mutating func take(_ count: Int, for field: Field) throws(WireError) -> ArraySlice<UInt8> {
        guard count <= bytes.endIndex - index else {
            throw WireError(.truncated, at: field.offset, "field \(field.number) needs \(count) bytes, but only \(bytes.endIndex - index) remain")
        }
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    private mutating func varint() throws(WireError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.endIndex else {
                throw WireError(.truncated, at: start, "the payload ends inside a varint")
            }
            let byte = bytes[index]
            index += 1
            guard shift < 64, shift < 63 || byte <= 1 else {
                throw WireError(.malformedField, at: start, "a varint is longer than 64 bits")
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }
}
