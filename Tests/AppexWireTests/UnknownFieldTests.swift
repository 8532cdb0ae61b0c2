import AppexCore
import AppexWire
import Foundation
import Testing

/// A newer peer may add fields. Protobuf readers skip fields they don't know, and so do ours,
/// wherever the fields stand and whatever their wire type.
@Suite struct UnknownFieldTests {
    /// One unknown field of each wire type the reader accepts: varint, 64-bit, length-delimited
    /// and 32-bit, numbered far above any field the schema uses.
    static let unknownFields: [UInt8] = [
        0xC0, 0x3E, 0x96, 0x01, // field 1000, varint 150
        0xC1, 0x3E, 1, 2, 3, 4, 5, 6, 7, 8, // field 1000, fixed64
        0xC2, 0x3E, 0x03, 0xFF, 0x00, 0x80, // field 1000, 3 bytes (not UTF-8: unknown bytes are not checked)
        0xC5, 0x3E, 9, 9, 9, 9, // field 1000, fixed32
        0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, // field 536870911 (the largest), varint 0
    ]

    func decode(type: UInt16, payload: [UInt8]) throws -> WireMessage {
        try WireMessage(Frame(type: type, payload: payload[...]))
    }

    @Test(arguments: WireSamples.all)
    func unknownFieldsAfterTheKnownOnesAreSkipped(_ message: WireMessage) throws {
        #expect(try decode(type: message.type, payload: message.encodedPayload() + Self.unknownFields) == message)
    }

    @Test(arguments: WireSamples.all)
    func unknownFieldsBeforeTheKnownOnesAreSkipped(_ message: WireMessage) throws {
        #expect(try decode(type: message.type, payload: Self.unknownFields + message.encodedPayload()) == message)
    }

    @Test func unknownFieldsInsideNestedMessagesAreSkipped() throws {
        // Failure { call: 3, error: ErrorInfo { unknown…, domain: "d", unknown… } }
        let inner: [UInt8] = Self.unknownFields + [0x0A, 0x01, 0x64] + Self.unknownFields
        let payload: [UInt8] = [0x08, 0x03, 0x12, UInt8(inner.count)] + inner
        #expect(try decode(type: 3, payload: payload) == .failure(Failure(call: 3, error: ErrorInfo(domain: "d", code: 0, message: ""))))

        // A plist value: PlistValue { array: PlistArray { unknown, values: PlistValue { unknown, integer -1 } } }
        let element: [UInt8] = Self.unknownFields + [0x10, 0x01]
        let array: [UInt8] = Self.unknownFields + [0x0A, UInt8(element.count)] + element
        let value: [UInt8] = [0x3A, UInt8(array.count)] + array
        let payloadMessage: [UInt8] = [0x1A, UInt8(value.count)] + value
        let result: [UInt8] = [0x1A, UInt8(payloadMessage.count)] + payloadMessage
        #expect(try decode(type: 42, payload: result)
            == .loadResult(LoadResult(loadID: 0, typeIdentifier: "", payload: .item(.array([.integer(-1)])))))
    }

    @Test func aRepeatedScalarFieldKeepsTheLastValue() throws {
        // Protobuf's rule for a non-repeated field that appears twice: the last one wins.
        #expect(try decode(type: 5, payload: [0x08, 0x01, 0x08, 0x02]) == .ping(Call(2)))
        #expect(try decode(type: 32, payload: [0x1A, 0x01, 0x61, 0x1A, 0x01, 0x62])
            == .openURLResult(OpenURLResult(call: 0, opened: false, reason: "b")))
    }

    @Test func unknownEnumValuesReadAsUnspecifiedWhereTheSchemaHasOne() throws {
        // Hello.role 9 and Interruption.kind 99 are from a newer peer.
        #expect(try decode(type: 1, payload: [0x20, 0x09]) == .hello(Hello(role: .unspecified, name: "", minimumVersion: 0, maximumVersion: 0)).withProtocolName(""))
        let interrupted = try decode(type: 16, payload: [0x1A, 0x02, 0x08, 0x63])
        #expect(interrupted == .requestInterrupted(RequestInterrupted(requestIDs: [], sessionID: 0, reason: Interruption(kind: .unspecified))))
    }
}

extension WireMessage {
    /// The same Hello with another protocol name, since ``Hello/init(role:name:minimumVersion:maximumVersion:)`` always says "appex".
    func withProtocolName(_ name: String) -> WireMessage {
        guard case .hello(var hello) = self else { return self }
        hello.protocolName = name
        return .hello(hello)
    }
}
