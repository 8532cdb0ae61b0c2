/// Cuts a byte stream into frames. A pure value: feed it what a socket read returned and how
/// many descriptors came with it, then take frames until it has no complete one.
///
/// It checks each header before waiting for the payload, so an oversized or malformed frame
/// is refused as soon as its header arrives, without buffering it.
///
/// ```swift
/// var decoder = FrameDecoder()
/// decoder.receive(bytes, descriptors: 0)
/// while let frame = try decoder.nextFrame() { handle(frame) }
/// ```
public struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0
    /// Descriptors received but not yet claimed by a frame.
    public private(set) var pendingDescriptors = 0
    /// Bytes of the stream consumed by complete frames so far.
    public private(set) var streamOffset = 0
    /// The largest payload accepted; at most ``Frame/maximumPayloadSize``.
    public let maximumPayloadSize: Int

    public init(maximumPayloadSize: Int = Frame.maximumPayloadSize) {
        self.maximumPayloadSize = min(maximumPayloadSize, Frame.maximumPayloadSize)
    }

    /// Adds bytes read from the stream, and the number of descriptors that came with them.
    public mutating func receive(_ bytes: some Collection<UInt8>, descriptors: Int = 0) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
        pendingDescriptors += descriptors
    }

    /// Bytes received that are not yet part of a complete frame.
    public var bufferedByteCount: Int { buffer.count - start }

    /// The next complete frame, or nil if more bytes are needed.
    public mutating func nextFrame() throws(WireError) -> Frame? {
        let available = buffer.count - start
        guard available >= Frame.headerSize else { return try waitingForMore() }
        let length = Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 24
        let type = UInt16(buffer[start + 4]) | UInt16(buffer[start + 5]) << 8
        let descriptors = Int(buffer[start + 6])
        guard length <= maximumPayloadSize else {
            throw WireError(.frameTooLarge, at: streamOffset, "a frame of type \(type) announces \(length) bytes; the limit is \(maximumPayloadSize)")
        }
        guard buffer[start + 7] == 0 else {
            throw WireError(.reservedBits, at: streamOffset + 7, "a frame of type \(type) sets reserved flags \(buffer[start + 7])")
        }
        guard descriptors <= Frame.maximumDescriptors else {
            throw WireError(.descriptorMismatch, at: streamOffset + 6, "a frame announces \(descriptors) descriptors; the limit is \(Frame.maximumDescriptors)")
        }
        guard available >= Frame.headerSize + length else { return try waitingForMore() }
        guard descriptors <= pendingDescriptors else {
            throw WireError(.descriptorMismatch, at: streamOffset + 6, "a frame of type \(type) announces \(descriptors) descriptors, but \(pendingDescriptors) arrived")
        }
        let payloadStart = start + Frame.headerSize
        let frame = Frame(type: type, descriptorCount: descriptors, payload: buffer[payloadStart..<(payloadStart + length)])
        start = payloadStart + length
        streamOffset += Frame.headerSize + length
        pendingDescriptors -= descriptors
        if start > 65_536, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return frame
    }

    /// No complete frame yet. Descriptors beyond what one frame may claim mean the peer is
    /// sending descriptors no frame will claim, which would exhaust ours.
    private func waitingForMore() throws(WireError) -> Frame? {
        guard pendingDescriptors <= Frame.maximumDescriptors else {
            throw WireError(.descriptorMismatch, at: streamOffset, "\(pendingDescriptors) descriptors arrived that no frame claims")
        }
        return nil
    }
}
