public import Foundation

/// What a property list may stand for, checked on its bytes before Foundation decodes it:
/// Foundation's readers build every value they are told of and recurse once per level of
/// nesting, so a small hostile file could take all the memory, or the stack, of whatever
/// reads it: `appex install`, an app reading shared defaults a member of its group wrote.
///
/// - A binary list is refused if it stands for more than ``maximumValueCount`` values, counting
///   each shared array or dictionary as often as it is reached, or if an object holds itself
///   (``BinaryPropertyList``).
/// - Every format is refused if it nests arrays and dictionaries more than ``maximumDepth``
///   deep. XML and OpenStep have no references, so their values are bounded by their size.
public enum PropertyListStructure {
    /// The most values a property list may stand for: 262,144. The largest Info.plist of the
    /// corpus of real apps holds 440; Foundation takes about 2 s and 200 MB to build a million.
    public static let maximumValueCount = 1 << 18
    /// The deepest nesting of arrays and dictionaries: 256. Real property lists nest a few
    /// levels; Foundation's readers recurse once per level.
    public static let maximumDepth = 256

    /// Checks `data`, a property list in any format, as the type's summary says; what isn't
    /// a property list at all is left for Foundation to refuse.
    public static func check(_ data: Data) throws(PropertyListError) {
        if let binary = BinaryPropertyList(data) {
            try binary.check()
            return
        }
        try checkTextDepth(text(data))
    }

    /// The bytes of a text list as UTF-8: UTF-16 (with its byte-order mark) transcoded, so
    /// that its brackets are seen.
    private static func text(_ data: Data) -> [UInt8] {
        let prefix = [UInt8](data.prefix(2))
        guard prefix == [0xFE, 0xFF] || prefix == [0xFF, 0xFE], let string = String(data: data, encoding: .utf16) else { return [UInt8](data) }
        return Array(string.utf8)
    }

    /// Refuses XML or OpenStep text that opens more than ``maximumDepth`` arrays and
    /// dictionaries without closing them. OpenStep's brackets are counted outside its quoted
    /// strings and comments; XML's `<array>` and `<dict>` tags wherever they are, which can
    /// only overcount, in a comment.
    private static func checkTextDepth(_ bytes: [UInt8]) throws(PropertyListError) {
        let isXML = bytes.first { !Self.isSpace($0) && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF } == UInt8(ascii: "<")
        var depth = 0
        var index = 0
        func refuse(_ offset: Int) -> PropertyListError {
            PropertyListError(.malformed, "nests arrays and dictionaries more than \(maximumDepth) deep, at byte \(offset)")
        }
        while index < bytes.count {
            let byte = bytes[index]
            if isXML {
                if byte == UInt8(ascii: "<") {
                    if Self.starts(bytes, at: index + 1, with: Self.arrayTag) || Self.starts(bytes, at: index + 1, with: Self.dictTag) {
                        // `<array/>` opens nothing; the tag's end is looked for only nearby, so
                        // that a file of unclosed tags costs no more than its length.
                        let near = bytes[index..<min(bytes.count, index + 64)]
                        let end = near.firstIndex(of: UInt8(ascii: ">"))
                        if end.map({ bytes[$0 - 1] != UInt8(ascii: "/") }) ?? true { depth += 1 }
                    } else if Self.starts(bytes, at: index + 1, with: Self.arrayEndTag) || Self.starts(bytes, at: index + 1, with: Self.dictEndTag) {
                        depth -= 1
                    }
                }
            } else {
                switch byte {
                case UInt8(ascii: "("), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: ")"), UInt8(ascii: "}"): depth -= 1
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    // A quoted string, with backslash escapes: skipped whole.
                    index += 1
                    while index < bytes.count, bytes[index] != byte { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                    index = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                    var end = index + 2
                    while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
                    index = end + 1
                default: break
                }
            }
            if depth > maximumDepth { throw refuse(index) }
            index += 1
        }
    }

    private static let (arrayTag, dictTag, arrayEndTag, dictEndTag) = (Array("array".utf8), Array("dict".utf8), Array("/array".utf8), Array("/dict".utf8))

    private static func starts(_ bytes: [UInt8], at offset: Int, with word: [UInt8]) -> Bool {
        guard offset + word.count <= bytes.count, bytes[offset..<(offset + word.count)].elementsEqual(word) else { return false }
        let next = offset + word.count
        guard next < bytes.count else { return true }
        switch bytes[next] {
        case UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"): return true
        default: return false
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

extension PropertyListValue {
    /// Checks `data` before it is decoded, as ``PropertyListStructure`` says: for code that
    /// decodes a property list with Foundation itself, such as shared defaults.
    public static func checkStructure(of data: Data) throws(PropertyListError) {
        try PropertyListStructure.check(data)
    }
}
