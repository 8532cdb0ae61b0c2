import AppexWire

/// The bytes any peer may write to a socket: the frame decoder cuts them into the same frames
/// however the reads split them, refuses with an offset inside the stream, and each message
/// it decodes encodes again to bytes that decode to the same message.
///
/// The first byte of the input chooses how the stream is cut into reads and how many
/// descriptors arrive with it; the rest is the stream.
enum WireFuzzing {
    static func check(_ input: [UInt8]) throws(InvariantViolation) {
        guard let control = input.first else { return }
        let stream = input.dropFirst()
        let descriptors = Int(control & 3)
        let whole = decode(stream, readSize: max(stream.count, 1), descriptors: descriptors)
        let pieces = decode(stream, readSize: Int(control >> 2) + 1, descriptors: descriptors)
        try InvariantViolation.require(whole.frames == pieces.frames, "the frames depend on how the stream was cut into reads")
        try InvariantViolation.require(whole.error?.code == pieces.error?.code,
                                       "one read gave \(whole.error.map(String.init(describing:)) ?? "no error"), several gave \(pieces.error.map(String.init(describing:)) ?? "no error")")
        if let error = whole.error {
            try InvariantViolation.require((0...stream.count).contains(error.offset) && !error.message.isEmpty, "a refusal outside the stream: \(error)")
        }
        for frame in whole.frames { try checkMessage(in: frame) }
    }

    /// Every frame the decoder gives for `stream` read `readSize` bytes at a time, and the
    /// error that ended it, if one did.
    static func decode(_ stream: ArraySlice<UInt8>, readSize: Int, descriptors: Int) -> (frames: [Frame], error: WireError?) {
        var decoder = FrameDecoder()
        var frames: [Frame] = []
        var offset = stream.startIndex
        repeat {
            let end = min(stream.endIndex, offset + readSize)
            decoder.receive(stream[offset..<end], descriptors: offset == stream.startIndex ? descriptors : 0)
            offset = end
            do {
                while let frame = try decoder.nextFrame() { frames.append(frame) }
            } catch {
                return (frames, error)
            }
        } while offset < stream.endIndex
        return (frames, nil)
    }

    /// The frame's message decodes, or is refused with an offset inside its payload; a
    /// decoded message encodes to bytes that decode to itself.
    static func checkMessage(in frame: Frame) throws(InvariantViolation) {
        let message: WireMessage
        do {
            message = try WireMessage(frame)
        } catch {
            try InvariantViolation.require((0...frame.payload.count).contains(error.offset) && !error.message.isEmpty,
                                           "a refusal outside the payload of a frame of type \(frame.type): \(error)")
            return
        }
        let encoded = message.encodedPayload()
        do {
            let again = try WireMessage(Frame(type: message.type, payload: encoded[...]))
            try InvariantViolation.require(again == message, "\(message.name) decodes to another message after encoding")
            try InvariantViolation.require(again.encodedPayload() == encoded, "\(message.name)'s encoding is not stable")
        } catch let violation as InvariantViolation {
            throw violation
        } catch {
            throw InvariantViolation("\(message.name) decoded, but its own encoding doesn't: \(error)")
        }
    }
}
