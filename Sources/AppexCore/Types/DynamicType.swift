/// The content of a dynamic (`dyn.`) type identifier: the tags it stands for and the types
/// it conforms to.
///
/// Apple makes a `dyn.a…` identifier when asked for a tag it has no declared type for. Its
/// encoding is undocumented, so Appex uses its own, documented in docs/uniform-types.md:
///
///     dyn.a<base32(payload)>
///
/// `a` is the encoding's version. The payload is UTF-8 text of `key=value` fields joined by
/// `;`, in this order: `c` once per type conformed to, then `e` for a filename extension and
/// `m` for a MIME type. In values, `%`, `;` and `=` are written `%25`, `%3B` and `%3D`.
/// The base32 alphabet is RFC 4648's in lowercase (`a`–`z`, `2`–`7`), without padding, so the
/// identifier survives case-insensitive comparison. The same tags and conformance always
/// give the same identifier, and the identifier decodes back to them.
struct DynamicType: Sendable, Hashable {
    /// One tag the dynamic type stands for.
    struct Tag: Sendable, Hashable {
        var tagClass: UTTagClass
        var value: String
    }

    /// The identifier prefix of every dynamic type, version included.
    static let prefix = "dyn.a"
    /// The longest payload encoded, in bytes; longer tags get no dynamic type.
    static let maximumPayloadLength = 1024

    /// The types this one conforms to, such as `public.data`.
    var conformsTo: [String]
    /// The tags this type stands for, such as the filename extension `xyz`.
    var tags: [Tag]

    init(conformsTo: [String], tags: [Tag]) {
        self.conformsTo = conformsTo
        self.tags = tags
    }

    /// Whether `identifier` is in the dynamic namespace (`dyn.`), decodable or not.
    static func isDynamic(_ identifier: String) -> Bool {
        hasPrefixIgnoringASCIICase(identifier, "dyn.")
    }

    /// The identifier, or `nil` when the payload would be longer than ``maximumPayloadLength``.
    var identifier: String? {
        var fields: [String] = conformsTo.map { "c=\(Self.escape($0))" }
        for tag in tags {
            switch tag.tagClass {
            case .filenameExtension: fields.append("e=\(Self.escape(tag.value))")
            case .mimeType: fields.append("m=\(Self.escape(tag.value))")
            default: continue
            }
        }
        let payload = Array(fields.joined(separator: ";").utf8)
        guard payload.count <= Self.maximumPayloadLength else { return nil }
        return Self.prefix + Base32.encode(payload)
    }

    /// Decodes a `dyn.a…` identifier; `nil` if it is not one this encoding produced.
    init?(identifier: String) {
        guard hasPrefixIgnoringASCIICase(identifier, Self.prefix) else { return nil }
        let encoded = identifier.utf8.dropFirst(Self.prefix.utf8.count)
        guard encoded.count <= (Self.maximumPayloadLength * 8 + 4) / 5,
            let payload = Base32.decode(encoded),
            let text = String(validating: payload, as: UTF8.self)
        else { return nil }
        var conformsTo: [String] = []
        var tags: [Tag] = []
        for field in text.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = field.firstIndex(of: "="),
                let value = Self.unescape(field[field.index(after: equals)...]), !value.isEmpty
            else { return nil }
            switch field[..<equals] {
            case "c": conformsTo.append(value)
            case "e": tags.append(Tag(tagClass: .filenameExtension, value: value))
            case "m": tags.append(Tag(tagClass: .mimeType, value: value))
            default: return nil
            }
        }
        self.init(conformsTo: conformsTo, tags: tags)
    }

    private static func escape(_ value: String) -> String {
        var result = ""
        for character in value.unicodeScalars {
            switch character {
            case "%": result += "%25"
            case ";": result += "%3B"
            case "=": result += "%3D"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    private static func unescape(_ value: Substring) -> String? {
        guard value.contains("%") else { return String(value) }
        var result = ""
        var rest = value[...]
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            let code = rest[percent...].prefix(3)
            switch code {
            case "%25": result += "%"
            case "%3B", "%3b": result += ";"
            case "%3D", "%3d": result += "="
            default: return nil
            }
            rest = rest[rest.index(percent, offsetBy: 3)...]
        }
        return result + rest
    }
}

/// RFC 4648 base32 with a lowercase alphabet and no padding.
enum Base32 {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int(buffer >> UInt32(bits) & 31)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func decode(_ characters: some Sequence<UInt8>) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in characters {
            let lowered = CaseInsensitiveKey.lowercase(character)
            let value: UInt32
            switch lowered {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(lowered - UInt8(ascii: "a"))
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = UInt32(lowered - UInt8(ascii: "2") + 26)
            default: return nil
            }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Leftover bits must be padding zeros, so each payload has exactly one spelling.
        guard bits < 5, buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
