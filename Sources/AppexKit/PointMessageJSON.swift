import Foundation

/// The JSON that the system's points put in their messages' bodies (docs/extension-points.md):
/// encoded with sorted keys, and read with errors that say, in one line, what broke and where.
public enum PointMessageJSON {
    /// `value` as a message body.
    public static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// A decoding error in one line, with the path of the field that broke.
    public static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.isEmpty ? "" : " at \(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "."))"
        }
        switch decoding {
        case .dataCorrupted(let context): return "not JSON\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context): return "\"\(key.stringValue)\" is missing\(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "wrong type\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
