/// A string that hashes and compares ignoring ASCII case, without allocating a lowercased copy.
///
/// Type identifiers, filename extensions and MIME types all compare case-insensitively, as
/// Apple's do. Bytes outside ASCII compare exactly.
struct CaseInsensitiveKey: Hashable, Sendable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: CaseInsensitiveKey, rhs: CaseInsensitiveKey) -> Bool {
        equalIgnoringASCIICase(lhs.string, rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { bytes in
            var offset = 0
            while offset + 8 <= bytes.count {
                hasher.combine(Self.lowercaseWord(UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self)))
                offset += 8
            }
            var tail: UInt64 = 0
            while offset < bytes.count {
                tail = tail << 8 | UInt64(Self.lowercase(bytes[offset]))
                offset += 1
            }
            hasher.combine(tail)
            hasher.combine(bytes.count)
        }
    }

    /// Lowercases the ASCII letters among eight bytes at once.
    @inline(__always)
    static func lowercaseWord(_ word: UInt64) -> UInt64 {
        let high: UInt64 = 0x8080_8080_8080_8080
        let low7 = word & ~high
        let atLeastA = low7 &+ 0x3F3F_3F3F_3F3F_3F3F  // high bit set where byte >= 'A'
        let aboveZ = low7 &+ 0x2525_2525_2525_2525  // high bit set where byte > 'Z'
        let isUpper = atLeastA & ~aboveZ & ~word & high
        return word | (isUpper >> 2)
    }

    @inline(__always)
    static func lowercase(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }
}

/// Whether two strings are equal when ASCII letters are compared without regard to case.
@inline(__always)
func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
    if lhs == rhs { return true }
    guard lhs.utf8.count == rhs.utf8.count else { return false }
    var left = lhs
    var right = rhs
    return left.withUTF8 { leftBytes in
        right.withUTF8 { rightBytes in
            var offset = 0
            while offset + 8 <= leftBytes.count {
                let a = UnsafeRawPointer(leftBytes.baseAddress! + offset).loadUnaligned(as: UInt64.self)
                let b = UnsafeRawPointer(rightBytes.baseAddress! + offset).loadUnaligned(as: UInt64.self)
                if a != b, CaseInsensitiveKey.lowercaseWord(a) != CaseInsensitiveKey.lowercaseWord(b) { return false }
                offset += 8
            }
            while offset < leftBytes.count {
                if CaseInsensitiveKey.lowercase(leftBytes[offset]) != CaseInsensitiveKey.lowercase(rightBytes[offset]) { return false }
                offset += 1
            }
            return true
        }
    }
}

/// Whether `string` begins with `prefix`, ignoring ASCII case. `prefix` must be lowercase.
func hasPrefixIgnoringASCIICase(_ string: String, _ prefix: String) -> Bool {
    var bytes = string.utf8.makeIterator()
    for expected in prefix.utf8 {
        guard let byte = bytes.next(), CaseInsensitiveKey.lowercase(byte) == expected else { return false }
    }
    return true
}
