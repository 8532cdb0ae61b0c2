public import AppexCore
import Foundation

/// Converts between `NSAttributedString`, which is not `Sendable`, and the property-list
/// form ``NSExtensionItem`` keeps it in.
///
/// The form: a plain string when there are no attributes to keep; otherwise a dictionary
/// with the text under `string` and an array under `runs`, each run a dictionary with
/// `location` and `length` in UTF-16 code units and `attributes` by key. Only attributes
/// whose values are property-list types are kept. A transport reads and writes the form
/// with ``parts(of:)`` and ``value(text:runs:)``, so it is spelled out here only.
public enum AttributedStringCoding {
    /// One run of attributes over `length` UTF-16 code units from `location`.
    public struct Run: Sendable, Hashable {
        public var location: Int
        public var length: Int
        public var attributes: [String: PropertyListValue]

        public init(location: Int, length: Int, attributes: [String: PropertyListValue]) {
            self.location = location
            self.length = length
            self.attributes = attributes
        }
    }

    /// The text and runs `value` holds, or `nil` if it holds no attributed string. Runs
    /// that lack a field, or have a negative one, are skipped.
    public static func parts(of value: PropertyListValue) -> (text: String, runs: [Run])? {
        if let text = value.stringValue { return (text, []) }
        guard let text = value["string"]?.stringValue else { return nil }
        let runs = (value["runs"]?.arrayValue ?? []).compactMap { run -> Run? in
            guard let location = run["location"]?.integerValue, let length = run["length"]?.integerValue,
                  let attributes = run["attributes"]?.dictionaryValue, location >= 0, length >= 0 else { return nil }
            return Run(location: location, length: length, attributes: attributes)
        }
        return (text, runs)
    }

    /// The stored form of `text` with `runs`.
    public static func value(text: String, runs: [Run]) -> PropertyListValue {
        guard !runs.isEmpty else { return .string(text) }
        let encoded: [PropertyListValue] = runs.map {
            ["location": .integer($0.location), "length": .integer($0.length), "attributes": .dictionary($0.attributes)]
        }
        return ["string": .string(text), "runs": .array(encoded)]
    }

    static func encode(_ string: NSAttributedString) -> PropertyListValue {
        var runs: [Run] = []
        string.enumerateAttributes(in: NSRange(location: 0, length: string.length), options: []) { attributes, range, _ in
            var kept: [String: PropertyListValue] = [:]
            for (key, value) in attributes {
                if let value = try? PropertyListValue(foundationObject: value) { kept[key.rawValue] = value }
            }
            guard !kept.isEmpty else { return }
            runs.append(Run(location: range.location, length: range.length, attributes: kept))
        }
        return value(text: string.string, runs: runs)
    }

    /// The attributed string a value stands for, or `nil` if it stands for none. Runs that
    /// fall outside the text, as a hostile peer might send, are skipped.
    static func decode(_ value: PropertyListValue) -> NSAttributedString? {
        guard let (text, runs) = parts(of: value) else { return nil }
        let result = NSMutableAttributedString(string: text)
        for run in runs where run.location <= result.length - run.length {
            var values: [NSAttributedString.Key: Any] = [:]
            for (key, attribute) in run.attributes { values[NSAttributedString.Key(key)] = attribute.foundationObject }
            result.addAttributes(values, range: NSRange(location: run.location, length: run.length))
        }
        return NSAttributedString(attributedString: result)
    }
}
