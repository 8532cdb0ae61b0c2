import Foundation

/// Writes a property list as XML, byte for byte as Foundation's `PropertyListSerialization`
/// does (keys sorted, a tab per level, reals to 17 significant digits, dates to the second
/// in UTC), for ``PropertyListValue/xmlData()``. Foundation's can't be used in a program
/// linked with `-static-stdlib`: there it refuses every empty array.
enum PropertyListXMLWriter {
    static func document(_ value: PropertyListValue) -> Data {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        write(value, depth: 0, to: &xml)
        xml += "</plist>\n"
        return Data(xml.utf8)
    }

    private static func write(_ value: PropertyListValue, depth: Int, to xml: inout String) {
        let indent = String(repeating: "\t", count: depth)
        switch value {
        case .string(let text): xml += "\(indent)<string>\(escaped(text))</string>\n"
        case .integer(let number): xml += "\(indent)<integer>\(number)</integer>\n"
        case .real(let number): xml += "\(indent)<real>\(real(number))</real>\n"
        case .boolean(let flag): xml += "\(indent)<\(flag ? "true" : "false")/>\n"
        case .date(let date): xml += "\(indent)<date>\(date.formatted(.iso8601))</date>\n"
        case .data(let data):
            // Foundation indents the encoded lines by at most 8 tabs, and fills each to column 76.
            let lineIndent = String(repeating: "\t", count: min(depth, 8))
            let lineLength = 76 - lineIndent.count * 8
            xml += "\(indent)<data>\n"
            let encoded = Array(data.base64EncodedString().utf8)
            for start in stride(from: 0, to: encoded.count, by: lineLength) {
                xml += lineIndent + String(decoding: encoded[start..<min(start + lineLength, encoded.count)], as: UTF8.self) + "\n"
            }
            xml += "\(indent)</data>\n"
        case .array(let elements) where elements.isEmpty: xml += "\(indent)<array/>\n"
        case .array(let elements):
            xml += "\(indent)<array>\n"
            for element in elements { write(element, depth: depth + 1, to: &xml) }
            xml += "\(indent)</array>\n"
        case .dictionary(let entries) where entries.isEmpty: xml += "\(indent)<dict/>\n"
        case .dictionary(let entries):
            xml += "\(indent)<dict>\n"
            for key in entries.keys.sorted() {
                xml += "\(indent)\t<key>\(escaped(key))</key>\n"
                write(entries[key]!, depth: depth + 1, to: &xml)
            }
            xml += "\(indent)</dict>\n"
        }
    }

    /// `text` with the three characters XML reserves in text written as entities.
    private static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// A real as Foundation writes one: 17 significant digits, infinities and NaN by name.
    private static func real(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-infinity" : "+infinity" }
        return String(format: "%.17g", number)
    }
}
