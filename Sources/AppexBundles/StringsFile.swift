public import AppexCore
public import Foundation

/// An old-style `.strings` file, such as `en.lproj/InfoPlist.strings`: `"key" = "value";` lines,
/// in UTF-8 or in UTF-16 with a byte-order mark.
public enum StringsFile {
    /// Decodes a strings table, or explains why the data is not one.
    public static func decode(_ data: Data) throws(PropertyListError) -> [String: String] {
        // Foundation reads the strings format as an OpenStep property list without braces,
        // and detects UTF-16 from its byte-order mark.
        let value = try PropertyListValue(decoding: data)
        guard let entries = value.dictionaryValue else {
            throw PropertyListError(.malformed, "is a \(value.kindName), but a strings file must hold \"key\" = \"value\"; pairs")
        }
        var table: [String: String] = [:]
        for (key, entry) in entries {
            guard let string = entry.stringValue else {
                throw PropertyListError(.malformed, "gives \(key) a \(entry.kindName), but strings files hold only strings")
            }
            table[key] = string
        }
        return table
    }
}
