public import Foundation
import NIOCore

/// The bytes `/bytes/N` serves: byte i is i mod 251, so any range can be made and checked
/// without a file, and no two chunks at different offsets look alike.
public enum GeneratedBytes {
    /// The largest chunk the server writes at once.
    public static let chunkSize = 64 * 1024

    /// A pattern long enough that any chunk is a slice of it.
    private static let pattern: [UInt8] = (0..<(chunkSize + 251)).map { UInt8($0 % 251) }

    /// `count` (at most ``chunkSize``) bytes from `offset`.
    static func chunk(at offset: Int64, count: Int) -> ByteBuffer {
        precondition(count <= chunkSize, "a chunk is at most \(chunkSize) bytes")
        let start = Int(offset % 251)
        return ByteBuffer(bytes: pattern[start..<(start + count)])
    }

    /// The first `count` bytes that `/bytes/N` serves, as a body to upload.
    public static func data(count: Int) -> Data {
        Data((0..<count).map { UInt8($0 % 251) })
    }

    /// Whether `bytes` are the first `bytes.count` bytes that `/bytes/N` serves.
    public static func matches(_ bytes: some Collection<UInt8>) -> Bool {
        var index = 0
        for byte in bytes {
            guard byte == UInt8(index % 251) else { return false }
            index += 1
        }
        return true
    }
}
