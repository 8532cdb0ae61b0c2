import AppexBundles
import AppexCore
import Foundation

/// How the registry stores property lists and display-name tables in blobs.
enum PropertyListCoding {
    /// `value` as XML, if the registry can read it back: a list a bundle wrote in a terse form
    /// (binary with shared references, OpenStep) can take more than
    /// ``PropertyListValue/maximumEncodedSize`` as XML, and a record past it could never be
    /// read again, so the install is refused instead.
    static func encode(_ value: PropertyListValue) throws -> Data {
        let xml = try value.xmlData()
        guard xml.count <= PropertyListValue.maximumEncodedSize else {
            throw RegistryError(
                .invalidBundle, "a property list of the bundle takes \(xml.count) bytes written as XML, over the "
                    + "\(PropertyListValue.maximumEncodedSize) a registry record may hold",
                hint: "its file is smaller only because shared references or a terse format stand for more: write what it holds once, smaller")
        }
        return xml
    }

    static func decode(_ data: Data) throws -> PropertyListValue {
        try PropertyListValue(decoding: data)
    }

    static func encode(displayNames: [String: String]) throws -> Data {
        try JSONEncoder().encode(displayNames)
    }

    /// The name for the user's languages from a stored table, falling back to the "" entry.
    /// The bundle chose it, and every host prints it, so its control characters are written
    /// out as escapes: a name is one line that can't drive a terminal.
    static func displayName(from data: Data, languages: [String]) -> String? {
        guard let names = try? JSONDecoder().decode([String: String].self, from: data) else { return nil }
        let name = Localization.candidates(for: languages).lazy.compactMap { names[$0] }.first ?? names[""]
        return name?.escapingControlCharacters
    }
}
