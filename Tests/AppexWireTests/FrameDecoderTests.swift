import AppexWire
import Foundation
import Testing

/// Cutting a byte stream into frames: the header's layout and limits, and how descriptors
/// are claimed, however the stream was split by the reads that delivered it.
@Suite struct FrameDecoderTests {
    /// A header: payload length, type, descriptor count and flags.
    func header(length: UInt32, type: UInt16 = 5, descriptors: UInt8 = 0, flags: UInt8 = 0) -> [UInt8] {
        withUnsafeBytes(of: length.littleEndian) { Array($0) } + withUnsafeBytes(of: type.littleEndian) { Array($0) } + [descriptors, flags]
    }

    /// Every frame `decoder` has complete.
    func drain(_ decoder: inout FrameDecoder) throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    /// Copies frames out of the decoder's buffer, so they compare by content alone.
    func detached(_ frames: [Frame]) -> [Frame] {
        frames.map { Frame(type: $0.type, descriptorCount: $0.descriptorCount, payload: Array($0.payload)[...]) }
    }

    @Test func theHeaderIsLittleEndianLengthTypeCountAndFlags() {
        let frame = Frame(type: 0x1234, descriptorCount: 5, payload: [0xAA, 0xBB, 0xCC])
        #expect(frame.bytes == [3, 0, 0, 0, 0x34, 0x12, 5, 0, 0xAA, 0xBB, 0xCC])
        #expect(Frame.headerSize == 8)
        #expect(Frame.maximumPayloadSize == 1_048_576)
        #expect(Frame.maximumDescriptors == 64)
    }

    @Test func framesFedOneByteAtATimeDecodeAsWhenFedWhole() throws {
        let frames = WireSamples.frames
        let stream = frames.flatMap { $0 }
        var whole = FrameDecoder()
        whole.receive(stream, descriptors: frames.indices.reduce(0) { $0 + $1 % 3 })
        let expected = detached(try drain(&whole))
        #expect(expected.count == frames.count)

        var decoder = FrameDecoder()
        var decoded: [Frame] = []
        for (index, frame) in frames.enumerated() {
            for (position, byte) in frame.enumerated() {
                // A frame's descriptors arrive with its first byte, as SCM_RIGHTS delivers them.
                decoder.receive(CollectionOfOne(byte), descriptors: position == 0 ? index % 3 : 0)
                let next = try decoder.nextFrame()
                if position == frame.count - 1 {
                    decoded.append(try #require(next, "frame \(index) is complete with its last byte"))
                } else {
                    #expect(next == nil, "frame \(index) is not complete at byte \(position)")
                }
            }
        }
        #expect(detached(decoded) == expected)
        #expect(try decoded.map(WireMessage.init) == WireSamples.all)
        #expect(decoder.streamOffset == stream.count)
        #expect(decoder.bufferedByteCount == 0)
        #expect(decoder.pendingDescriptors == 0)
    }

    @Test func aStreamSplitAtEveryByteBoundaryDecodesTheSame() throws {
        let messages: [WireMessage] = [.ping(Call(1)), WireSamples.all[9], .pong(Call(300)), .checkIn(CheckIn(bundleIdentifier: ""))]
        let stream = try messages.flatMap { try $0.frameBytes(descriptorCount: 1) }
        for split in 0...stream.count {
            var decoder = FrameDecoder()
            // All four frames' descriptors come with the first read, before any frame claims them.
            decoder.receive(stream[..<split], descriptors: messages.count)
            var frames = try drain(&decoder)
            decoder.receive(stream[split...])
            frames += try drain(&decoder)
            #expect(try frames.map(WireMessage.init) == messages, "split at \(split)")
            #expect(decoder.pendingDescriptors == 0)
        }
    }

    @Test func aLongStreamInSmallReadsDecodesCompletely() throws {
        // More than 64 KiB of stream, so the decoder compacts its buffer along the way.
        let messages = (0..<3_000).map { WireMessage.openURL(OpenURL(call: UInt64($0), url: "notes://item/\($0)")) }
        let stream = try messages.flatMap { try $0.frameBytes() }
        #expect(stream.count > 65_536)
        var decoder = FrameDecoder()
        var decoded: [WireMessage] = []
        var offset = 0
        while offset < stream.count {
            let end = min(stream.count, offset + 4_093)
            decoder.receive(stream[offset..<end])
            decoded += try drain(&decoder).map(WireMessage.init)
            offset = end
        }
        #expect(decoded == messages)
        #expect(decoder.streamOffset == stream.count)
    }

    @Test func anEmptyPayloadIsAFrame() throws {
        var decoder = FrameDecoder()
        decoder.receive(header(length: 0, type: 5))
        #expect(try decoder.nextFrame().map(WireMessage.init) == .ping(Call(0)))
    }

    @Test func anIncompleteHeaderWaits() throws {
        var decoder = FrameDecoder()
        decoder.receive(header(length: UInt32.max, flags: 1).prefix(7))
        #expect(try decoder.nextFrame() == nil, "nothing is judged before the whole header is there")
        #expect(decoder.bufferedByteCount == 7)
    }

    // MARK: limits refused from the header alone

    @Test(arguments: [UInt32(Frame.maximumPayloadSize + 1), 0x0200_0000, UInt32.max])
    func anOversizedFrameIsRefusedAsSoonAsItsHeaderArrives(_ length: UInt32) {
        var decoder = FrameDecoder()
        decoder.receive(header(length: length)) // only the header; the payload never comes
        let error = #expect(throws: WireError.self) { try decoder.nextFrame() }
        #expect(error?.code == .frameTooLarge)
        #expect(error?.offset == 0)
    }

    @Test func theLargestFrameIsAcceptedAndWaitedFor() throws {
        var decoder = FrameDecoder()
        decoder.receive(header(length: UInt32(Frame.maximumPayloadSize), type: 42))
        #expect(try decoder.nextFrame() == nil)
    }

    @Test func aDecoderMayBeStricterThanTheProtocol() throws {
        var decoder = FrameDecoder(maximumPayloadSize: 16)
        decoder.receive(header(length: 16) + [UInt8](repeating: 0, count: 16))
        #expect(try decoder.nextFrame()?.payload.count == 16)
        decoder.receive(header(length: 17))
        let error = #expect(throws: WireError.self) { try decoder.nextFrame() }
        #expect(error?.code == .frameTooLarge)
        #expect(error?.offset == 24, "the offset counts from the start of the stream")
        #expect(FrameDecoder(maximumPayloadSize: .max).maximumPayloadSize == Frame.maximumPayloadSize, "but never laxer")
    }

    @Test(arguments: [1, 2, 0x80, 0xFF] as [UInt8])
    func aReservedFlagIsRefused(_ flags: UInt8) throws {
        var decoder = FrameDecoder()
        decoder.receive(try WireMessage.ping(Call(1)).frameBytes() + header(length: 2, flags: flags))
        #expect(try decoder.nextFrame() != nil)
        let error = #expect(throws: WireError.self) { try decoder.nextFrame() }
        #expect(error?.code == .reservedBits)
        #expect(error?.offset == 10 + 7, "the flags byte of the second frame")
    }

    @Test func moreThan64DescriptorsInOneFrameAreRefusedFromTheHeader() {
        var decoder = FrameDecoder()
        decoder.receive(header(length: 100, descriptors: 65), descriptors: 65)
        let error = #expect(throws: WireError.self) { try decoder.nextFrame() }
        #expect(error?.code == .descriptorMismatch)
        #expect(error?.offset == 6)
    }

    // MARK: descriptors

    @Test func aFrameClaimingDescriptorsThatNeverCameIsRefused() throws {
        var decoder = FrameDecoder()
        let frame = try WireMessage.ping(Call(1)).frameBytes(descriptorCount: 2)
        decoder.receive(frame.prefix(9), descriptors: 1)
        #expect(try decoder.nextFrame() == nil, "the payload is not all there yet")
        decoder.receive(frame.dropFirst(9))
        let error = #expect(throws: WireError.self) { try decoder.nextFrame() }
        #expect(error?.code == .descriptorMismatch)
        #expect(error?.offset == 6)
    }

    @Test func descriptorsAreClaimedInOrderByEachFramesCount() throws {
        var decoder = FrameDecoder()
        // Two frames' descriptors (0 + 3) arrive in one read with the bytes of both.
        decoder.receive(try WireMessage.ping(Call(1)).frameBytes() + WireMessage.ping(Call(2)).frameBytes(descriptorCount: 3), descriptors: 3)
        #expect(decoder.pendingDescriptors == 3)
        #expect(try decoder.nextFrame()?.descriptorCount == 0)
        #expect(decoder.pendingDescriptors == 3)
        #expect(try decoder.nextFrame()?.descriptorCount == 3)
        #expect(decoder.pendingDescriptors == 0)
    }

    @Test func unclaimedDescriptorsPilingUpAreRefused() throws {
        var decoder = FrameDecoder()
        // Frames that claim nothing, sent with descriptors anyway, 10 at a time.
        let frame = try WireMessage.ping(Call(1)).frameBytes()
        for round in 1...6 {
            decoder.receive(frame, descriptors: 10)
            #expect(try decoder.nextFrame() != nil)
            #expect(try decoder.nextFrame() == nil, "\(round * 10) unclaimed descriptors are still within one frame's worth")
        }
        decoder.receive(frame, descriptors: 10)
        #expect(try decoder.nextFrame() != nil)
        let error = #expect(throws: WireError.self) { try decoder.nextFrame() }
        #expect(error?.code == .descriptorMismatch)
        #expect(error?.offset == 70)
    }

    @Test func descriptorsAheadOfTheirFrameAreFine() throws {
        var decoder = FrameDecoder()
        decoder.receive([], descriptors: 64)
        #expect(try decoder.nextFrame() == nil)
        decoder.receive(try WireMessage.ping(Call(1)).frameBytes(descriptorCount: 64))
        #expect(try decoder.nextFrame()?.descriptorCount == 64)
    }
}
