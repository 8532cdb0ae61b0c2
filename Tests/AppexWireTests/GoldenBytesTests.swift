import AppexCore
import AppexWire
import Foundation
import Testing

/// The encoding is protobuf's, byte for byte, not merely self-consistent: each expected
/// payload below came from Google's protobuf library, not from our encoder.
///
/// They were produced once with Python's `protobuf` 7.36 from docs/wire.proto, and are pasted
/// here so the tests never need Python:
///
/// ```
/// pip install protobuf grpcio-tools
/// python -m grpc_tools.protoc -Idocs --python_out=/tmp docs/wire.proto
/// # then, in /tmp: import wire_pb2 as w; build the message the test names;
/// # print(message.SerializeToString(deterministic=True).hex())
/// ```
///
/// Python serializes fields in field-number order, repeated entries in the order given
/// (the dictionaries here are built in key order, as our encoder writes them), and `optional`
/// or `oneof` fields whenever they are set, even to zero.
@Suite struct GoldenBytesTests {
    func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// `message` encodes to exactly `hex`, and `hex` decodes to exactly `message`.
    func expectGolden(_ message: WireMessage, _ hex: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(message.encodedPayload() == bytes(hex), sourceLocation: sourceLocation)
        #expect(try WireMessage(Frame(type: message.type, payload: bytes(hex)[...])) == message, sourceLocation: sourceLocation)
    }

    @Test func helloByHand() throws {
        // Derived by hand from the protobuf encoding spec (protobuf.dev/programming-guides/encoding):
        //   0a 05 61 70 70 65 78   field 1 (protocol), wire type 2: key (1<<3)|2 = 0x0a, length 5, "appex"
        //   10 01                  field 2 (minimum_version), varint: key (2<<3)|0 = 0x10, value 1
        //   18 01                  field 3 (maximum_version): key 0x18, value 1
        //   20 01                  field 4 (role), enum HOST = 1: key 0x20, value 1
        //   2a 05 6e 6f 74 65 73   field 5 (name): key (5<<3)|2 = 0x2a, length 5, "notes"
        // and the frame header before it:
        //   14 00 00 00            payload length 20, uint32 little-endian
        //   01 00                  message type 1 (Hello), uint16 little-endian
        //   00                     no descriptors
        //   00                     flags, reserved
        let hello = WireMessage.hello(Hello(role: .host, name: "notes", minimumVersion: 1, maximumVersion: 1))
        try expectGolden(hello, "0a0561707065781001180120012a056e6f746573")
        #expect(try hello.frameBytes() == bytes("1400000001000000" + "0a0561707065781001180120012a056e6f746573"))
    }

    @Test func requestStartedFrameWithOneDescriptor() throws {
        // The second example of docs/wire.md: header 1b000000 (27 bytes), 0d00 (type 13), 01 (one descriptor), 00.
        let started = WireMessage.requestStarted(RequestStarted(call: 1, requestID: WireSamples.firstID, sessionID: 1, pid: 4242,
                                                                isNewSession: true))
        let payload = "0801121000112233445566778899aabbccddeeff180120a4422801"
        try expectGolden(started, payload)
        #expect(try started.frameBytes(descriptorCount: 1) == bytes("1b0000000d000100" + payload))
    }

    @Test func welcomeWithAZigzagPid() throws {
        // pid 4242 is a sint64: zigzag 8484 = varint a4 42.
        try expectGolden(.welcome(Welcome(version: 1, pid: 4242, name: "appexd")), "080110a4421a06617070657864")
    }

    @Test func failureWithANegativeCode() throws {
        // code -1 as sint64 is zigzag 1, where an int64 would take ten bytes.
        let failure = Failure(call: 300, error: ErrorInfo(domain: "NSCocoaErrorDomain", code: -1, message: "Not found",
                                                          recoverySuggestion: "Install it"))
        try expectGolden(.failure(failure),
                         "08ac02122d0a124e53436f636f614572726f72446f6d61696e10011a094e6f7420666f756e64220a496e7374616c6c206974")
    }

    @Test func pingAndBeginRequest() throws {
        try expectGolden(.ping(Call(1)), "0801")
        try expectGolden(.beginRequest(BeginRequest(call: 2, requestID: WireSamples.firstID, extensionIdentifier: "com.example.notes.share")),
                         "0802121000112233445566778899aabbccddeeff1a17636f6d2e6578616d706c652e6e6f7465732e7368617265")
    }

    @Test func requestInterruptedWithAnOptionalZero() throws {
        // exit_status is `optional`: set to 0 it is still written (18 00); signal, unset, is not.
        let interrupted = RequestInterrupted(requestIDs: [WireSamples.firstID, WireSamples.secondID], sessionID: 7,
                                             reason: Interruption(kind: .crashed, signal: nil, exitStatus: 0, message: "exited"))
        try expectGolden(.requestInterrupted(interrupted),
                         "0a1000112233445566778899aabbccddeeff0a100123456789abcdeffedcba987654321010071a0c080118003206657869746564")
    }

    @Test func loadResultWithEveryScalarPlistKind() throws {
        // w.LoadResult(load_id=5, type_identifier="public.plain-text"), payload.item.dictionary with entries
        // a: [integer -2, integer 0, real 1.5, boolean True, boolean False], d: date 86400.0, s: "é", x: data 00ff
        let item = PropertyListValue.dictionary([
            "a": .array([.integer(-2), .integer(0), .real(1.5), .boolean(true), .boolean(false)]),
            "d": .date(Date(timeIntervalSinceReferenceDate: 86400)),
            "s": .string("é"),
            "x": .data(Data([0, 255])),
        ])
        try expectGolden(.loadResult(LoadResult(loadID: 5, typeIdentifier: "public.plain-text", payload: .item(item))),
                         "080512117075626c69632e706c61696e2d746578741a4e1a4c424a0a220a0161121d3a1b0a0210030a0210000a0919000000000000f83f"
                         + "0a0220010a0220000a0e0a0164120931000000000018f5400a090a017312040a02c3a90a090a017812042a0200ff")
    }

    @Test func queryExtensionsWithPresentButEmptyFields() throws {
        // attributed_title "" and file_size 0 are `optional` and set; user_info is an empty message, set.
        let items = ActivationItems([.init(attributedTitle: "", attributedContentText: nil, userInfo: [:], attachments: [
            .init(registeredTypeIdentifiers: ["public.url", "public.text"], suggestedName: nil, fileSize: 0),
        ])])
        try expectGolden(.queryExtensions(QueryExtensions(call: 2, point: "com.apple.share-services", items: items, includeDisabled: true)),
                         "08021218636f6d2e6170706c652e73686172652d736572766963657322230a210a001a00221b0a0a7075626c69632e75726c0a0b7075626c69632e7465787418002801")
    }

    @Test func completeRequestWithAttributedTextAndADescriptor() throws {
        let item = WireItem(
            attributedTitle: AttributedText(text: "Hi", runs: [.init(location: 0, length: 2, attributes: PlistDictionary(["NSFont": .string("Mono")]))]),
            userInfo: ["k": .integer(1)],
            attachments: [WireAttachment(providerID: 1, suggestedName: "", representations: [
                WireRepresentation(typeIdentifier: "public.jpeg", kind: .file, opensInPlace: true,
                                   payload: .descriptor(slot: 0, length: 1234, filename: "a.jpg")),
            ])]
        )
        try expectGolden(.completeRequest(RequestItems(requestID: WireSamples.secondID, items: [item])),
                         "0a100123456789abcdeffedcba987654321012500a1c0a024869121610021a120a100a064e53466f6e7412060a044d6f6e6f1a090a070a016b120210022225"
                         + "080112001a1f0a0b7075626c69632e6a70656710011801220c120a10d2091a05612e6a7067")
    }

    @Test func pointMessageCarriesItsBodyUnread() throws {
        // 0a 10 <16 bytes>   field 1 (request_id), 16 bytes
        // 10 02              field 2 (sequence): 2
        // 1a 04 74657874     field 3 (name): "text"
        // 22 02 7b7d         field 4 (body): the two bytes "{}", which the wire does not read
        try expectGolden(.pointMessage(PointMessage(requestID: WireSamples.secondID, sequence: 2, name: "text", body: Array("{}".utf8))),
                         "0a100123456789abcdeffedcba987654321010021a047465787422027b7d")
    }
}
