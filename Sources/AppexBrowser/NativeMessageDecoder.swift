/// Cuts the bytes a browser writes to a native messaging host into messages: each is a
/// 32-bit length in the machine's byte order (little-endian on every machine Appex runs
/// on), then that many bytes of UTF-8 JSON.
///
/// A pure value, fed whatever each read returned, so it can be fuzzed and tested without a
/// pipe. A message longer than ``limit`` is not held: its bytes are counted off as they come,
/// and ``Frame/oversized(_:)`` reports it once, so one bad message costs no memory and the
/// stream stays in step for the next.
///
/// ```swift
/// var decoder = NativeMessageDecoder()
/// decoder.append(bytesRead)
/// while let frame = decoder.next() { … }
/// ```
public struct NativeMessageDecoder: Sendable {
    /// One message, or the report of one that was too long.
    public enum Frame: Sendable, Hashable {
        case message([UInt8])
        /// A message of this many bytes, more than the limit, whose bytes were dropped.
        case oversized(Int)
    }

    /// The most bytes a message may have: 8 MiB. A web page's preprocessing results are
    /// the largest thing a browser sends, and the extension refuses results past 4 MiB
    /// before sending them (docs/browser.md, "Limits").
    public static let defaultLimit = 8 << 20

    public let limit: Int
    private var buffer: [UInt8] = []
    /// Where the unread bytes of ``buffer`` start.
    private var start = 0
    /// Bytes of an oversized message still to drop.
    private var skipping = 0

    public init(limit: Int = defaultLimit) {
        self.limit = limit
    }

    /// Whether the stream ended between messages: true unless part of one has come.
    public var isAtBoundary: Bool { skipping == 0 && buffer.count == start }

    /// Takes the next bytes of the stream.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        var bytes = bytes[...]
        if skipping > 0 {
            let dropped = min(skipping, bytes.count)
            skipping -= dropped
            bytes = bytes.dropFirst(dropped)
        }
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, or nil until more bytes come.
    public mutating func next() -> Frame? {
        guard skipping == 0, buffer.count - start >= 4 else { return nil }
        let length = Int(UInt32(buffer[start]) | UInt32(buffer[start + 1]) << 8 | UInt32(buffer[start + 2]) << 16 | UInt32(buffer[start + 3]) << 24)
        if length > limit {
            let available = buffer.count - start - 4
            let dropped = min(available, length)
            skipping = length - dropped
            start += 4 + dropped
            compact()
            return .oversized(length)
        }
        guard buffer.count - start - 4 >= length else { return nil }
        let message = Array(buffer[(start + 4)..<(start + 4 + length)])
        start += 4 + length
        compact()
        return .message(message)
    }

    /// Drops the bytes already read once they are most of the buffer, so a long stream of
    /// small messages doesn't keep every one of them.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            start = 0
        } else if start > 1 << 16 && start > buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// `message` with its length in front, as a host writes it to the browser.
    public static func frame(_ message: some Collection<UInt8>) -> [UInt8] {
        let length = UInt32(message.count)
        return [UInt8(length & 0xff), UInt8(length >> 8 & 0xff), UInt8(length >> 16 & 0xff), UInt8(length >> 24)] + message
    }
}
