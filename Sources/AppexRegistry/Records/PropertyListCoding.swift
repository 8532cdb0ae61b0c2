import AppexBundles
import AppexCore
import Foundation

/// How the registry stores property lists and display-name tables in blobs.
enum PropertyListCoding {
    static func encode(_ value: PropertyListValue) throws -> Data {
        try value.xmlData()
    }

    static func decode(_ data: Data) throws -> PropertyListValue {
        try PropertyListValue(decoding: data)
    }

    static func encode(displayNames: [String: String]) throws -> Data {
        try JSONEncoder().encode(displayNames)
    }

    /// The name for the user's languages from a stored table, falling back to the "" entry.
    static func displayName(from data: Data, languages: [String]) -> String? {
        guard let names = try? JSONDecoder().decode([String: String].self, from: data) else { return nil }
        for language in Localization.candidates(for: languages) {
            if let name = names[language] { return name }
        }
        return names[""]
    }
}
