import Foundation

/// JSON form of property-list values, for items files and the registry.
///
/// JSON has no dates or data: a date encodes as an ISO 8601 string and data as a base64
/// string, and both decode back as strings. A JSON `null` cannot be decoded, since property
/// lists have no null. Booleans keep their kind; a number decodes as an integer when it has
/// no fractional part (JSON does not tell `100.0` from `100`) and as a real otherwise.
extension PropertyListValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .boolean(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .integer(number)
        } else if let number = try? container.decode(Double.self) {
            self = .real(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([PropertyListValue].self) {
            self = .array(elements)
        } else if let entries = try? container.decode([String: PropertyListValue].self) {
            self = .dictionary(entries)
        } else if container.decodeNil() {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "null is not a property-list value")
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a property-list value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        case .real(let number): try container.encode(number)
        case .boolean(let flag): try container.encode(flag)
        case .date(let date): try container.encode(date.formatted(.iso8601))
        case .data(let data): try container.encode(data.base64EncodedString())
        case .array(let elements): try container.encode(elements)
        case .dictionary(let entries): try container.encode(entries)
        }
    }
}
