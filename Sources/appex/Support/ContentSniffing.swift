import AppexCore
import Foundation

/// The type of bytes with no name, from what they begin with: the few formats people pipe.
enum ContentSniffing {
    private static let signatures: [(prefix: [UInt8], type: UTType)] = [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        ([0xFF, 0xD8, 0xFF], .jpeg),
        (Array("GIF8".utf8), .gif),
        (Array("%PDF-".utf8), .pdf),
        ([0x50, 0x4B, 0x03, 0x04], .zip),
        ([0x1F, 0x8B], .gzip),
    ]

    /// The type `head`, the first bytes, say; UTF-8 text is plain text, and anything else `public.data`.
    static func type(of head: Data) -> UTType {
        let bytes = [UInt8](head)
        if let known = signatures.first(where: { bytes.starts(with: $0.prefix) }) { return known.type }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) { return .webP }
        return isText(bytes) ? .utf8PlainText : .data
    }

    /// Whether `bytes` are UTF-8 without control characters other than white space; a
    /// character cut at the end of the sample still counts.
    private static func isText(_ bytes: [UInt8]) -> Bool {
        guard !bytes.contains(where: { $0 < 0x20 && ![0x09, 0x0A, 0x0D, 0x0C].contains($0) }) else { return false }
        for cut in 0...min(3, bytes.count) where String(validating: bytes.dropLast(cut), as: UTF8.self) != nil {
            return true
        }
        return false
    }
}
