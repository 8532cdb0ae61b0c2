import AppexCore
import AppexWire
import Foundation
import Testing

/// Hostile or broken payloads: each is refused with the right ``WireError`` code and the
/// offset of the field at fault, counted from the start of the payload.
@Suite struct HostileInputTests {
    /// Decodes `payload` as a message of `type`, and returns the error it was refused with.
    func refusal(type: UInt16, _ payload: [UInt8]) -> WireError? {
        #expect(throws: WireError.self) { try WireMessage(Frame(type: type, payload: payload[...])) }
    }

    func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        return bytes + [UInt8(value)]
    }

    /// Wraps `body` as field `number`, length-delimited.
    func field(_ number: UInt64, _ body: [UInt8]) -> [UInt8] {
        varint(number << 3 | 2) + varint(UInt64(body.count)) + body
    }

    // MARK: truncated

    @Test func aVarintCutShortIsTruncated() {
        let error = refusal(type: 5, [0x08, 0x80, 0x80])
        #expect(error?.code == .truncated)
        #expect(error?.offset == 1, "the varint starts after the key")
    }

    @Test func aKeyCutShortIsTruncated() {
        let error = refusal(type: 5, [0x08, 0x01, 0x80])
        #expect(error?.code == .truncated)
        #expect(error?.offset == 2)
    }

    @Test func aLengthPastTheEndIsTruncated() {
        let error = refusal(type: 30, [0x0A, 0x05, 0x61, 0x62])
        #expect(error?.code == .truncated)
        #expect(error?.offset == 0)
        // A length near 2^64 must not overflow into a small one.
        #expect(refusal(type: 30, [0x0A] + varint(.max) + [0x61])?.code == .truncated)
        #expect(refusal(type: 30, [0x0A] + varint(1 << 63))?.code == .truncated)
    }

    @Test func fixedWidthFieldsCutShortAreTruncated() {
        #expect(refusal(type: 5, [0x11, 1, 2, 3, 4, 5, 6, 7])?.code == .truncated, "fixed64 needs 8 bytes")
        #expect(refusal(type: 5, [0x15, 1, 2, 3])?.code == .truncated, "fixed32 needs 4 bytes")
        // A plist real (field 3, a double) with 7 bytes, inside LoadResult.payload.item.
        let item = field(3, field(3, [0x19, 0, 0, 0, 0, 0, 0, 0xF0]))
        let error = refusal(type: 42, item)
        #expect(error?.code == .truncated)
        #expect(error?.offset == 4, "offsets count from the start of the whole payload, even nested")
    }

    // MARK: malformed fields

    @Test func anElevenByteVarintIsMalformed() {
        let error = refusal(type: 5, [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01])
        #expect(error?.code == .malformedField)
        #expect(error?.offset == 1)
    }

    @Test func aTenByteVarintWithBitsPast64IsMalformed() throws {
        #expect(refusal(type: 5, [0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x02])?.code == .malformedField)
        // …while the largest 10-byte varint is UInt64.max.
        #expect(try WireMessage(Frame(type: 5, payload: ([0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x01])[...])) == .ping(Call(.max)))
        // Non-minimal encodings are valid protobuf: 1 written in 10 bytes.
        #expect(try WireMessage(Frame(type: 5, payload: ([0x08] + [UInt8](repeating: 0x80, count: 9) + [0x00])[...])) == .ping(Call(0)))
    }

    @Test func theWrongWireTypeIsMalformed() {
        let asBytes = refusal(type: 5, [0x0A, 0x00])
        #expect(asBytes?.code == .malformedField, "a call number sent as length-delimited")
        #expect(asBytes?.offset == 0)
        #expect(refusal(type: 30, [0x08, 0x01])?.code == .malformedField, "a string sent as a varint")
        #expect(refusal(type: 42, [0x1D, 0, 0, 0, 0])?.code == .malformedField, "a message sent as fixed32")
        #expect(refusal(type: 2, [0x08, 0x01, 0x11, 0, 0, 0, 0, 0, 0, 0, 0])?.code == .malformedField, "a sint64 sent as fixed64")
    }

    @Test func groupsAndUndefinedWireTypesAreMalformed() {
        for wireType: UInt8 in [3, 4, 6, 7] {
            let error = refusal(type: 5, [0x08, 0x01, 0x10 | wireType])
            #expect(error?.code == .malformedField, "wire type \(wireType)")
            #expect(error?.offset == 2)
        }
    }

    @Test func fieldNumberZeroIsMalformed() {
        #expect(refusal(type: 5, [0x00, 0x01])?.code == .malformedField)
        #expect(refusal(type: 5, [0x02, 0x00])?.code == .malformedField)
        // A key above field 536870911 (2^29 - 1).
        #expect(refusal(type: 5, varint(1 << 32) + [0x00])?.code == .malformedField)
    }

    // MARK: invalid UTF-8

    @Test(arguments: [[0xFF], [0xC3, 0x28], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] as [[UInt8]])
    func stringsThatAreNotUTF8AreRefused(_ bytes: [UInt8]) {
        let error = refusal(type: 30, field(1, bytes))
        #expect(error?.code == .invalidUTF8)
        #expect(error?.offset == 0)
    }

    @Test func invalidUTF8InANestedStringGivesTheNestedOffset() {
        // Failure { call: 1, error: ErrorInfo { domain: <bad> } }: the domain's key is at byte 4.
        let error = refusal(type: 3, [0x08, 0x01] + field(2, field(1, [0xFE])))
        #expect(error?.code == .invalidUTF8)
        #expect(error?.offset == 4)
    }

    // MARK: nesting

    /// A LoadResult whose item is `depth` plist arrays, one inside the other, around a string.
    func nestedArrays(_ depth: Int) -> WireMessage {
        var value = PropertyListValue.string("bottom")
        for _ in 0..<depth { value = .array([value]) }
        return .loadResult(LoadResult(loadID: 1, typeIdentifier: "t", payload: .item(value)))
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        // LoadResult is depth 0, its Payload 1, the item 2, and each array adds a PlistArray
        // and a PlistValue: 31 arrays put the string at depth 64, the maximum.
        #expect(ProtoReader.maximumDepth == 64)
        let message = nestedArrays(31)
        #expect(try WireMessage(Frame(type: 42, payload: message.encodedPayload()[...])) == message)
    }

    @Test(arguments: [32, 33, 100])
    func nestingPastTheLimitIsTooDeep(_ depth: Int) {
        let error = refusal(type: 42, nestedArrays(depth).encodedPayload())
        #expect(error?.code == .tooDeep)
        #expect((error?.offset ?? 0) > 64)
    }

    @Test func deepNestingBuiltByHandStopsAtTheLimitWithoutRecursingFurther() {
        // 2,000 levels of PlistValue.array / PlistArray.values, built inside out without the
        // encoder. The reader must refuse it at the limit, whatever lies below.
        var inner: [UInt8] = [0x0A, 0x00] // PlistValue { string: "" }
        for _ in 0..<2_000 {
            inner = field(7, field(1, inner)) // PlistValue { array: PlistArray { values: inner } }
        }
        let payload = field(3, field(3, inner))
        #expect(refusal(type: 42, payload)?.code == .tooDeep)
    }

    // MARK: invalid values

    @Test(arguments: [0, 1, 15, 17, 32])
    func aUUIDThatIsNot16BytesIsRefused(_ count: Int) {
        let bytes = [UInt8](repeating: 0xAB, count: count)
        for type: UInt16 in [14, 15, 45] {
            let error = refusal(type: type, field(1, bytes))
            #expect(error?.code == .invalidValue)
            #expect(error?.offset == 0)
        }
        #expect(refusal(type: 12, [0x08, 0x01] + field(2, bytes))?.offset == 2)
        #expect(refusal(type: 16, field(1, [UInt8](repeating: 0, count: 16)) + field(1, bytes))?.code == .invalidValue)
    }

    @Test func requiredFieldsThatNeverCameAreInvalid() {
        // Every message that names a request needs its request_id.
        for type: UInt16 in [12, 13, 14, 15, 40, 41, 43, 44, 45] {
            #expect(refusal(type: type, [])?.code == .invalidValue, "type \(type)")
        }
        // A LoadResult needs a payload, a payload needs a value, and so does a plist entry.
        #expect(refusal(type: 42, [0x08, 0x01])?.code == .invalidValue)
        #expect(refusal(type: 42, field(3, []))?.code == .invalidValue)
        #expect(refusal(type: 42, field(3, field(3, [])))?.code == .invalidValue, "an empty PlistValue")
        let entryWithoutValue = field(3, field(3, field(8, field(1, field(1, [0x6B])))))
        #expect(refusal(type: 42, entryWithoutValue)?.code == .invalidValue)
    }

    @Test func numbersTooLargeForTheirFieldAreInvalid() {
        #expect(refusal(type: 1, [0x10] + varint(1 << 32))?.code == .invalidValue, "Hello.minimum_version is a uint32")
        #expect(refusal(type: 2, [0x08] + varint(UInt64(UInt32.max) + 1))?.code == .invalidValue, "Welcome.version")
        // A descriptor slot can't be more than a frame's 64 descriptors, let alone 255.
        #expect(refusal(type: 42, field(3, field(2, [0x08] + varint(256))))?.code == .invalidValue)
        // A representation kind this version doesn't define.
        let loadRequest = field(2, [UInt8](repeating: 0, count: 16)) + [0x28, 0x03]
        let error = refusal(type: 41, loadRequest)
        #expect(error?.code == .invalidValue)
        #expect(error?.offset == 18)
    }

    // MARK: message types

    @Test(arguments: [0, 7, 9, 22, 29, 39, 47, 1000, UInt16.max] as [UInt16])
    func anUndefinedMessageTypeIsRefused(_ type: UInt16) {
        #expect(refusal(type: type, [])?.code == .unknownMessageType)
        #expect(refusal(type: type, [0x08, 0x01])?.code == .unknownMessageType)
    }

    @Test func errorsSayWhatAndWhere() {
        let error = WireError(.truncated, at: 12, "field 2 claims 5 bytes, but only 1 remain")
        #expect(error.description == "protocol error (truncated) at byte 12: field 2 claims 5 bytes, but only 1 remain")
        let codes: [WireError.Code] = [.frameTooLarge, .descriptorMismatch, .reservedBits, .unknownMessageType, .truncated,
                                       .malformedField, .invalidUTF8, .tooDeep, .invalidValue, .handshake, .unexpectedMessage,
                                       .messageTooLarge]
        #expect(Set(codes).count == codes.count)
        #expect(Set(codes.map(\.description)).count == codes.count)
    }
}
