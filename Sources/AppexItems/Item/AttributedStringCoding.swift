import AppexCore
import Foundation

/// Converts between `NSAttributedString`, which is not `Sendable`, and the property-list
/// form ``NSExtensionItem`` keeps it in.
///
/// The form: a plain string when there are no attributes to keep; otherwise a dictionary
/// with the text under `string` and an array under `runs`, each run a dictionary with
/// `location` and `length` in UTF-16 code units and `attributes` by key. Only attributes
/// whose values are property-list types are kept.
enum AttributedStringCoding {
    static func encode(_ string: NSAttributedString) -> PropertyListValue {
        var runs: [PropertyListValue] = []
        string.enumerateAttributes(in: NSRange(location: 0, length: string.length), options: []) { attributes, range, _ in
            var kept: [String: PropertyListValue] = [:]
            for (key, value) in attributes {
                if let value = try? PropertyListValue(foundationObject: value) { kept[key.rawValue] = value }
            }
            guard !kept.isEmpty else { return }
            runs.append(["location": .integer(range.location), "length": .integer(range.length), "attributes": .dictionary(kept)])
        }
        if runs.isEmpty { return .string(string.string) }
        return ["string": .string(string.string), "runs": .array(runs)]
    }

    /// The attributed string a value stands for, or `nil` if it stands for none. Runs that
    /// fall outside the text, as a hostile peer might send, are skipped.
    static func decode(_ value: PropertyListValue) -> NSAttributedString? {
        if let text = value.stringValue { return NSAttributedString(string: text) }
        guard let text = value["string"]?.stringValue else { return nil }
        let result = NSMutableAttributedString(string: text)
        for run in value["runs"]?.arrayValue ?? [] {
            guard let location = run["location"]?.integerValue, let length = run["length"]?.integerValue,
                let attributes = run["attributes"]?.dictionaryValue,
                location >= 0, length >= 0, location <= result.length - length
            else { continue }
            var values: [NSAttributedString.Key: Any] = [:]
            for (key, attribute) in attributes { values[NSAttributedString.Key(key)] = attribute.foundationObject }
            result.addAttributes(values, range: NSRange(location: location, length: length))
        }
        return NSAttributedString(attributedString: result)
    }
}
