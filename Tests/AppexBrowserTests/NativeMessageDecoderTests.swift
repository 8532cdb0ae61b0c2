import AppexBrowser
import Testing

/// The browsers' framing, cut from whatever each read returned.
@Suite struct NativeMessageDecoderTests {
    static func frames(_ messages: [String]) -> [UInt8] {
        messages.flatMap { NativeMessageDecoder.frame(Array($0.utf8)) }
    }

    @Test func messagesComeWholeHoweverTheStreamIsCut() {
        let stream = Self.frames(["{\"id\":1}", "", "{\"id\":2,\"text\":\"héllo\"}"])
        for cut in 1...stream.count {
            var decoder = NativeMessageDecoder()
            var got: [NativeMessageDecoder.Frame] = []
            var offset = 0
            while offset < stream.count {
                decoder.append(stream[offset..<min(offset + cut, stream.count)])
                offset += cut
                while let frame = decoder.next() { got.append(frame) }
            }
            #expect(got == [.message(Array("{\"id\":1}".utf8)), .message([]), .message(Array("{\"id\":2,\"text\":\"héllo\"}".utf8))], "cut every \(cut)")
            #expect(decoder.isAtBoundary)
        }
    }

    @Test func theLengthIsLittleEndian() {
        #expect(NativeMessageDecoder.frame(Array(repeating: 0x61, count: 258)).prefix(4) == [2, 1, 0, 0])
    }

    /// A message past the limit is reported once and its bytes dropped as they come, and the
    /// next message is read as usual.
    @Test func anOversizedMessageIsDroppedAndTheStreamStaysInStep() {
        var decoder = NativeMessageDecoder(limit: 16)
        let big = NativeMessageDecoder.frame(Array(repeating: 0x78, count: 100))
        let after = NativeMessageDecoder.frame(Array("{}".utf8))
        decoder.append(big.prefix(10))
        #expect(decoder.next() == .oversized(100))
        #expect(decoder.next() == nil)
        decoder.append(big.dropFirst(10).prefix(50))
        #expect(decoder.next() == nil)
        #expect(!decoder.isAtBoundary)
        decoder.append(Array(big.dropFirst(60)) + after)
        #expect(decoder.next() == .message(Array("{}".utf8)))
        #expect(decoder.isAtBoundary)
    }

    @Test func aLengthThatClaimsFourGigabytesIsOversized() {
        var decoder = NativeMessageDecoder()
        decoder.append([0xff, 0xff, 0xff, 0xff, 1, 2, 3])
        #expect(decoder.next() == .oversized(Int(UInt32.max)))
        #expect(decoder.next() == nil)
    }
}
