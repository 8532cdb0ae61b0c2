/// The CRC-32 of ISO 3309 and ITU-T V.42, as zip archives, gzip and PNG check their data with.
///
/// ```swift
/// var crc = CRC32()
/// crc.update(bytes)
/// let check = crc.value
/// ```
public struct CRC32: Sendable, Hashable {
    private var state: UInt32 = 0xFFFF_FFFF

    public init() {}

    /// The checksum of everything given so far.
    public var value: UInt32 { ~state }

    /// Adds `bytes` to the checksum.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = state
        for byte in bytes {
            crc = Self.table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
        }
        state = crc
    }

    /// The remainder of each byte, for the reflected polynomial 0xEDB88320.
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
