import AppexWire
import Testing

@Suite struct FrameTests {
    @Test func aFrameRoundTripsThroughTheDecoder() throws {
        let bytes = try WireMessage.ping(Call(7)).frameBytes()
        var decoder = FrameDecoder()
        decoder.receive(bytes)
        let frame = try #require(try decoder.nextFrame())
        #expect(try WireMessage(frame) == .ping(Call(7)))
        #expect(try decoder.nextFrame() == nil)
    }
}
