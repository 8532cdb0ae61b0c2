public import Foundation

extension ActivationItems {
    /// The largest items file read, 16 MiB: descriptions hold types and short texts, not contents.
    public static let maximumJSONSize = 16 * 1024 * 1024

    /// Decodes the CLI's `ITEMS.json`: a top-level array of items, or an object with
    /// `extensionItems` (and optionally `fileproviderItems`).
    ///
    /// ```json
    /// [{"attributedContentText": "hi", "attachments": [{"registeredTypeIdentifiers": ["public.jpeg"]}]}]
    /// ```
    /// - Throws: ``ActivationItemsError`` naming the JSON path of the first problem.
    public init(jsonData data: Data) throws(ActivationItemsError) {
        guard data.count <= Self.maximumJSONSize else {
            throw ActivationItemsError(.tooLarge, "the items file is \(data.count) bytes, over the \(Self.maximumJSONSize)-byte limit")
        }
        let firstByte = data.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        let decoder = JSONDecoder()
        do {
            switch firstByte {
            case UInt8(ascii: "["):
                self.init(try decoder.decode([Item].self, from: data))
            case UInt8(ascii: "{"):
                self = try decoder.decode(ActivationItems.self, from: data)
            case nil:
                throw ActivationItemsError(.malformed, "the items file is empty; expected a JSON array of items")
            default:
                throw ActivationItemsError(.malformed, "expected a JSON array of items, or an object with \"extensionItems\"")
            }
        } catch let error as ActivationItemsError {
            throw error
        } catch let error as DecodingError {
            throw ActivationItemsError(.malformed, Self.describe(error))
        } catch {
            throw ActivationItemsError(.malformed, "the items file is not valid JSON: \(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type == String.self ? "a string" : "\(type)") (\(context.debugDescription))"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)): a value is missing (\(context.debugDescription))"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): required key \"\(key.stringValue)\" is missing"
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return "\(path(context.codingPath)): \(context.debugDescription)\(underlying)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Why an items description could not be decoded.
public struct ActivationItemsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added.
    public struct Code: Sendable, Hashable {
        fileprivate let name: String
        /// The JSON is not well-formed or does not have the shape of items.
        public static let malformed = Code(name: "malformed")
        /// The JSON is larger than ``ActivationItems/maximumJSONSize``.
        public static let tooLarge = Code(name: "tooLarge")
    }

    /// What kind of failure this is.
    public let code: Code
    /// What was wrong, with the JSON path where it could be found.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
