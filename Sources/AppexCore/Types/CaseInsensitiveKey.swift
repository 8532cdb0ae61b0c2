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
        var word: UInt64 = 0
        var filled = 0
        var count = 0
        for byte in string.utf8 {
            word = word << 8 | UInt64(Self.lowercase(byte))
            filled += 1
            count += 1
            if filled == 8 {
                hasher.combine(word)
                word = 0
                filled = 0
            }
        }
        hasher.combine(word)
        hasher.combine(count)
    }

    @inline(__always)
    static func lowercase(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }
}

/// Whether two strings are equal when ASCII letters are compared without regard to case.
@inline(__always)
func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
    let left = lhs.utf8
    let right = rhs.utf8
    guard left.count == right.count else { return false }
    return left.elementsEqual(right) { CaseInsensitiveKey.lowercase($0) == CaseInsensitiveKey.lowercase($1) }
}

/// Whether `string` begins with `prefix`, ignoring ASCII case. `prefix` must be lowercase.
func hasPrefixIgnoringASCIICase(_ string: String, _ prefix: String) -> Bool {
    var bytes = string.utf8.makeIterator()
    for expected in prefix.utf8 {
        guard let byte = bytes.next(), CaseInsensitiveKey.lowercase(byte) == expected else { return false }
    }
    return true
}
