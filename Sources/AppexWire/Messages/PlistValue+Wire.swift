public import AppexCore
import Foundation

/// `PlistValue` in docs/wire.proto: one property-list value.
extension PropertyListValue: ProtoMessage {
    public func encode(to writer: inout ProtoWriter) {
        switch self {
        case .string(let value): writer.string(1, value, always: true)
        case .integer(let value): writer.sint(2, Int64(value), always: true)
        case .real(let value): writer.double(3, value, always: true)
        case .boolean(let value): writer.bool(4, value, always: true)
        case .data(let value): writer.bytes(5, value, always: true)
        case .date(let value): writer.double(6, value.timeIntervalSinceReferenceDate, always: true)
        case .array(let values): writer.message(7, Repeated(values: values))
        case .dictionary(let entries): writer.message(8, PlistDictionary(entries))
        }
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        var value: PropertyListValue?
        while let field = try reader.nextField() {
            switch field.number {
            case 1: value = .string(try reader.string(field))
            case 2: value = .integer(Int(truncatingIfNeeded: try reader.sint(field)))
            case 3: value = .real(try reader.double(field))
            case 4: value = .boolean(try reader.bool(field))
            case 5: value = .data(Data(try reader.bytes(field)))
            case 6: value = .date(Date(timeIntervalSinceReferenceDate: try reader.double(field)))
            case 7: value = .array(try reader.message(field, as: Repeated<PropertyListValue>.self).values)
            case 8: value = .dictionary(try reader.message(field, as: PlistDictionary.self).entries)
            default: try reader.skip(field)
            }
        }
        guard let value else { throw reader.missing("value", in: "a PlistValue") }
        self = value
    }
}

/// `PlistDictionary` in docs/wire.proto: entries in key order, so encodings are stable.
public struct PlistDictionary: ProtoMessage, Hashable {
    public var entries: [String: PropertyListValue]

    public init(_ entries: [String: PropertyListValue] = [:]) { self.entries = entries }

    public func encode(to writer: inout ProtoWriter) {
        for key in entries.keys.sorted() {
            writer.message(1) { entry in
                entry.string(1, key)
                entry.message(2, entries[key]!)
            }
        }
    }

    public init(from reader: inout ProtoReader) throws(WireError) {
        entries = [:]
        while let field = try reader.nextField() {
            guard field.number == 1 else { try reader.skip(field); continue }
            let entry = try reader.message(field, as: PlistEntry.self)
            entries[entry.key] = entry.value
        }
    }
}

/// `PlistEntry` in docs/wire.proto.
struct PlistEntry: ProtoMessage {
    var key = ""
    var value: PropertyListValue = .string("")

    func encode(to writer: inout ProtoWriter) {
        writer.string(1, key)
        writer.message(2, value)
    }

    init(from reader: inout ProtoReader) throws(WireError) {
        var found: PropertyListValue?
        while let field = try reader.nextField() {
            switch field.number {
            case 1: key = try reader.string(field)
            case 2: found = try reader.message(field)
            default: try reader.skip(field)
            }
        }
        guard let found else { throw reader.missing("value", in: "the userInfo entry \"\(key)\"") }
        value = found
    }
}
