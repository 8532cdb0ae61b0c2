import Foundation

/// Property-list values as `Any`, the way `UserDefaults` hands them out.
enum PropertyListValues {
    /// `value` with each `NSNumber` as the Swift type it holds (`Bool`, `Int` or `Double`), as
    /// Foundation's `UserDefaults` returns them.
    static func normalized(_ value: Any) -> Any {
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B": return number.boolValue
            case "f", "d": return number.doubleValue
            default: return number.intValue
            }
        }
        switch value {
        case let array as [Any]: return array.map(normalized)
        case let dictionary as [String: Any]: return dictionary.mapValues(normalized)
        default: return value
        }
    }

    /// Whether `value` can be stored: strings, numbers, booleans, dates, data, and arrays and
    /// dictionaries (with string keys) of them.
    static func isStorable(_ value: Any) -> Bool {
        switch value {
        case is String, is Bool, is Int, is Double, is Float, is Date, is Data, is NSNumber,
             is Int8, is Int16, is Int32, is Int64, is UInt8, is UInt16, is UInt32, is UInt64, is UInt:
            true
        case let array as [Any]: array.allSatisfy(isStorable)
        case let dictionary as [String: Any]: dictionary.values.allSatisfy(isStorable)
        default: false
        }
    }

    /// Whether two stored values are the same.
    static func equal(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case let (a as [Any], b as [Any]): a.count == b.count && zip(a, b).allSatisfy(equal)
        case let (a as [String: Any], b as [String: Any]):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        case let (a as String, b as String): a == b
        case let (a as Bool, b as Bool): a == b
        case let (a as Int, b as Int): a == b
        case let (a as Double, b as Double): a == b
        case let (a as Date, b as Date): a == b
        case let (a as Data, b as Data): a == b
        default: false
        }
    }
}
