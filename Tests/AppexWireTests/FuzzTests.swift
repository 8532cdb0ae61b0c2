import AppexWire
import Testing

/// Mutated frames, from a fixed seed so any failure can be replayed: the decoder must return
/// frames or throw ``WireError``, never trap, and whatever it accepts must re-encode stably.
@Suite struct FuzzTests {
    /// SplitMix64: small, fast and the same on every platform, unlike the system generator.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One random change to `bytes`: a bit flip, a new byte, a cut, a splice from another
    /// frame, a repeat, or an insertion of random bytes.
    func mutate(_ bytes: inout [UInt8], donors: [[UInt8]], using random: inout SeededGenerator) {
        switch Int.random(in: 0..<7, using: &random) {
        case 0 where !bytes.isEmpty:
            bytes[Int.random(in: bytes.indices, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case 1 where !bytes.isEmpty:
            bytes[Int.random(in: bytes.indices, using: &random)] = UInt8.random(in: 0...255, using: &random)
        case 2:
            bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
        case 3:
            let donor = donors.randomElement(using: &random)!
            let start = Int.random(in: 0...donor.count, using: &random)
            let end = Int.random(in: start...donor.count, using: &random)
            bytes.insert(contentsOf: donor[start..<end], at: Int.random(in: 0...bytes.count, using: &random))
        case 4 where !bytes.isEmpty:
            let start = Int.random(in: bytes.indices, using: &random)
            let end = Int.random(in: start...min(bytes.count, start + 32), using: &random)
            bytes.insert(contentsOf: bytes[start..<end], at: end)
        case 5:
            let count = Int.random(in: 1...8, using: &random)
            bytes.insert(contentsOf: (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) },
                         at: Int.random(in: 0...bytes.count, using: &random))
        default:
            if bytes.count > 1 {
                let start = Int.random(in: bytes.indices, using: &random)
                bytes.removeSubrange(start..<Int.random(in: start...bytes.count, using: &random))
            }
        }
    }

    /// Decodes every frame and message it can from `stream`, delivered in random reads with
    /// random descriptor counts. Returns how many messages decoded.
    func decodeAll(_ stream: [UInt8], using random: inout SeededGenerator) -> Int {
        var decoder = FrameDecoder()
        var offset = 0
        var decodedMessages = 0
        while offset < stream.count {
            let end = min(stream.count, offset + Int.random(in: 1...64, using: &random))
            decoder.receive(stream[offset..<end], descriptors: Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: 0...3, using: &random) : 0)
            offset = end
            do {
                while let frame = try decoder.nextFrame() {
                    #expect(frame.payload.count <= Frame.maximumPayloadSize)
                    do {
                        let message = try WireMessage(frame)
                        decodedMessages += 1
                        expectStableReencoding(message)
                    } catch {
                        expectSensible(error, within: frame.payload.count)
                    }
                }
            } catch {
                expectSensible(error, within: stream.count)
                return decodedMessages // the connection would close here
            }
        }
        return decodedMessages
    }

    /// What a decoder accepted encodes to bytes that decode to the same encoding again.
    func expectStableReencoding(_ message: WireMessage) {
        let once = message.encodedPayload()
        do {
            let again = try WireMessage(Frame(type: message.type, payload: once[...]))
            #expect(again.encodedPayload() == once)
        } catch {
            Issue.record("\(message.name) decoded, but its own encoding doesn't: \(error)")
        }
    }

    func expectSensible(_ error: WireError, within length: Int) {
        #expect(error.offset >= 0 && error.offset <= length, "\(error)")
        #expect(!error.message.isEmpty)
    }

    @Test func mutatedStreamsNeverTrap() {
        var random = SeededGenerator(state: 0x0A99_E7F0_0D5E_ED01)
        let frames = WireSamples.frames
        var decodedMessages = 0
        for _ in 0..<3_000 {
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) { stream += frames.randomElement(using: &random)! }
            for _ in 0..<Int.random(in: 1...4, using: &random) { mutate(&stream, donors: frames, using: &random) }
            decodedMessages += decodeAll(stream, using: &random)
        }
        #expect(decodedMessages > 0, "some mutations leave frames intact")
    }

    @Test func mutatedPayloadsInValidFramesNeverTrap() {
        // Keeps each header valid, so the mutations reach the message decoders.
        var random = SeededGenerator(state: 0x5EED_0000_0000_0002)
        let payloads = WireSamples.all.map { ($0.type, $0.encodedPayload()) }
        var accepted = 0
        var refused: Set<String> = []
        for _ in 0..<4_000 {
            let (type, original) = payloads.randomElement(using: &random)!
            var payload = original
            for _ in 0..<Int.random(in: 1...3, using: &random) { mutate(&payload, donors: payloads.map(\.1), using: &random) }
            do {
                expectStableReencoding(try WireMessage(Frame(type: type, payload: payload[...])))
                accepted += 1
            } catch {
                expectSensible(error, within: payload.count)
                refused.insert(error.code.name)
            }
        }
        #expect(accepted > 0)
        #expect(refused.isSuperset(of: ["truncated", "malformedField", "invalidValue"]), "\(refused)")
    }

    @Test func randomBytesNeverTrap() {
        var random = SeededGenerator(state: 3)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...64, using: &random)
            var stream = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Half the time, a plausible header in front, so the payload gets decoded.
            if Bool.random(using: &random) {
                let type = [1, 2, 3, 5, 10, 16, 40, 42, 43].randomElement(using: &random)!
                stream = Frame(type: UInt16(type), payload: stream[...]).bytes
            }
            _ = decodeAll(stream, using: &random)
        }
    }
}
