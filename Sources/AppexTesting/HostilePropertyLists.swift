public import AppexCore
public import Foundation

/// Property lists that a hostile author would write to exhaust their reader: binary lists
/// built object by object, with references shared or pointing back, and text lists nested
/// deep. For tests of the limits in `PropertyListStructure`.
public enum HostilePropertyLists {
    /// One object of a binary property list.
    public enum Object: Sendable {
        /// An array of references to other objects, by number.
        case array([Int])
        /// A dictionary: each key's object and its value's, by number.
        case dictionary([(key: Int, value: Int)])
        /// An ASCII string.
        case string(String)
        /// A boolean.
        case boolean(Bool)
        /// An integer, written in eight bytes.
        case integer(Int)
    }

    /// A binary property list of `objects`, whose first is the top: two-byte references and
    /// four-byte offsets, as Foundation writes them for lists of this size.
    public static func binary(_ objects: [Object]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        func count(_ marker: UInt8, _ count: Int) {
            if count < 15 {
                bytes.append(marker | UInt8(count))
            } else {
                bytes += [marker | 0x0F, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
            }
        }
        func reference(_ object: Int) { bytes += [UInt8(object >> 8), UInt8(object & 0xFF)] }
        for object in objects {
            offsets.append(bytes.count)
            switch object {
            case .array(let elements):
                count(0xA0, elements.count)
                elements.forEach(reference)
            case .dictionary(let entries):
                count(0xD0, entries.count)
                entries.forEach { reference($0.key) }
                entries.forEach { reference($0.value) }
            case .string(let text):
                count(0x50, text.utf8.count)
                bytes += Array(text.utf8)
            case .boolean(let value):
                bytes.append(value ? 0x09 : 0x08)
            case .integer(let value):
                bytes.append(0x13)
                bytes += withUnsafeBytes(of: Int64(value).bigEndian, Array.init)
            }
        }
        let table = bytes.count
        for offset in offsets { bytes += withUnsafeBytes(of: UInt32(offset).bigEndian, Array.init) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 2]
        for value in [UInt64(objects.count), 0, UInt64(table)] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        return Data(bytes)
    }

    /// `value` as a binary list in which equal strings are one object that every place holding
    /// them refers to, as a property-list writer may write it: so a string repeated many times
    /// costs its bytes once. Holds strings, booleans, integers, arrays and dictionaries.
    public static func binary(sharingStrings value: PropertyListValue) -> Data {
        var objects: [Object] = []
        var strings: [String: Int] = [:]
        func add(_ value: PropertyListValue) -> Int {
            if case .string(let text) = value, let known = strings[text] { return known }
            let index = objects.count
            objects.append(.string(""))
            switch value {
            case .string(let text):
                strings[text] = index
                objects[index] = .string(text)
            case .boolean(let flag): objects[index] = .boolean(flag)
            case .integer(let number): objects[index] = .integer(number)
            case .array(let elements): objects[index] = .array(elements.map(add))
            case .dictionary(let entries):
                objects[index] = .dictionary(entries.sorted { $0.key < $1.key }.map { (key: add(.string($0.key)), value: add($0.value)) })
            default: preconditionFailure("binary(sharingStrings:) holds no \(value.kindName)")
            }
            return index
        }
        _ = add(value)
        return binary(objects)
    }

    /// The attack: `levels` arrays, each of `width` references to the next, the last
    /// to a string. About `levels × width × 2` bytes that stand for `width^levels` values.
    public static func sharedLevels(_ levels: Int, width: Int) -> Data {
        binary((0..<levels).map { level in .array(Array(repeating: level + 1, count: width)) } + [.string("laugh")])
    }

    /// Two arrays that hold each other.
    public static var cycle: Data { binary([.array([1]), .array([0])]) }

    /// Arrays nested `depth` deep, in `format`: "binary", "xml" or "openstep".
    public static func nested(_ depth: Int, format: String) -> Data {
        switch format {
        case "binary":
            return binary((0..<depth).map { .array([$0 + 1]) } + [.string("deep")])
        case "xml":
            return Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n"
                + String(repeating: "<array>", count: depth) + "<string>deep</string>" + String(repeating: "</array>", count: depth)
                + "\n</plist>\n").utf8)
        default:
            return Data((String(repeating: "(", count: depth) + "deep" + String(repeating: ")", count: depth)).utf8)
        }
    }
}
