public import Foundation

extension PropertyListValue {
    /// The largest property list Appex reads. Real Info.plists are a few KiB; 4 MiB leaves
    /// room for big type declarations while keeping a hostile file from exhausting memory.
    public static let maximumEncodedSize = 4 * 1024 * 1024

    /// The dates a property list can hold, in seconds from 2001: 0001-01-01 to 9999-12-31T23:59:59Z.
    static let writableDates = -63_113_904_000.0...252_423_993_599.0

    /// Decodes a property list in any of the formats Foundation reads: XML, binary or OpenStep.
    ///
    /// - Throws: ``PropertyListError`` saying why the data is not a property list.
    public init(decoding data: Data) throws(PropertyListError) {
        guard data.count <= Self.maximumEncodedSize else {
            throw PropertyListError(.tooLarge, "is \(data.count) bytes, over the \(Self.maximumEncodedSize)-byte limit for a property list")
        }
        guard !data.isEmpty else {
            throw PropertyListError(.malformed, "is empty")
        }
        try PropertyListStructure.check(data)
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            var reason = "is not a property list (XML, binary or OpenStep): \(Self.describe(error))"
            if Self.holdsPreprocessorDirectives(data) {
                reason += "; it holds C preprocessor directives (#ifdef …), which Xcode expands when INFOPLIST_PREPROCESS is on,"
                    + " so run it through `cpp -P -traditional` first"
            }
            throw PropertyListError(.malformed, reason)
        }
        self = try Self(foundationObject: object, keyPath: "")
    }

    /// Wraps a value that Foundation's property-list or JSON serialization produced.
    public init(foundationObject object: Any, keyPath: String = "") throws(PropertyListError) {
        switch object {
        case let value as String:
            self = .string(value)
        case let value as NSNumber:
            self = Self.number(value)
        case let value as Date:
            // A binary plist stores any double; XML writes only four-digit years, so a date
            // outside them would not read back the same (fuzzing found this).
            guard Self.writableDates.contains(value.timeIntervalSinceReferenceDate) else {
                throw PropertyListError(.malformed, "holds a date at \(keyPath.isEmpty ? "the top level" : keyPath) outside the years 1 to 9999, which a property list can't write")
            }
            self = .date(value)
        case let value as Data:
            self = .data(value)
        case let values as [Any]:
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(values.count)
            for (index, element) in values.enumerated() {
                elements.append(try Self(foundationObject: element, keyPath: "\(keyPath)[\(index)]"))
            }
            self = .array(elements)
        case let entries as [String: Any]:
            var dictionary: [String: PropertyListValue] = [:]
            dictionary.reserveCapacity(entries.count)
            for (key, element) in entries {
                let path = keyPath.isEmpty ? key : "\(keyPath).\(key)"
                dictionary[key] = try Self(foundationObject: element, keyPath: path)
            }
            self = .dictionary(dictionary)
        case is NSNull:
            throw PropertyListError(.malformed, "holds null at \(keyPath.isEmpty ? "the top level" : keyPath); property lists have no null")
        default:
            throw PropertyListError(.malformed, "holds a \(type(of: object)) at \(keyPath.isEmpty ? "the top level" : keyPath), which is not a property-list type")
        }
    }

    /// The Foundation object for this value, for `PropertyListSerialization` and `JSONSerialization`.
    public var foundationObject: Any {
        switch self {
        case .string(let value): value
        case .integer(let value): value
        case .real(let value): value
        case .boolean(let value): value
        case .date(let value): value
        case .data(let value): value
        case .array(let values): values.map(\.foundationObject)
        case .dictionary(let entries): entries.mapValues(\.foundationObject)
        }
    }

    /// Encodes this value as an XML property list.
    public func xmlData() throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: foundationObject, format: .xml, options: 0)
    }

    private static func number(_ number: NSNumber) -> PropertyListValue {
        // Foundation hands booleans over as NSNumber with the "c" (char) type on every platform.
        switch String(cString: number.objCType) {
        case "c", "B": return .boolean(number.boolValue)
        case "f", "d": return .real(number.doubleValue)
        default: return .integer(number.intValue)
        }
    }

    /// Whether a line of `data` starts with `#if`, `#ifdef`, `#include` or `#define`.
    private static func holdsPreprocessorDirectives(_ data: Data) -> Bool {
        let text = String(decoding: data.prefix(1 << 20), as: UTF8.self)
        return text.split(separator: "\n").contains { line in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            return ["#if", "#include", "#define", "#import"].contains { trimmed.hasPrefix($0) }
        }
    }

    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String { return detail }
        return nsError.localizedDescription
    }
}

/// Why bytes could not be read as a property list.
public struct PropertyListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added.
    public struct Code: Sendable, Hashable {
        fileprivate let name: String
        /// The data is not a property list in any supported format.
        public static let malformed = Code(name: "malformed")
        /// The data is larger than ``PropertyListValue/maximumEncodedSize``.
        public static let tooLarge = Code(name: "tooLarge")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence fragment that completes "The property list …".
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "the property list \(reason)" }
}
