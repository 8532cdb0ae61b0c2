import AppexCore
public import Foundation

// Apple's item API takes and gives `NSSecureCoding` objects: `NSString`, `NSURL`, `NSData`,
// `NSNumber`, `NSDate`, and `NSArray` and `NSDictionary` of them. A provider keeps an item
// as an `ItemValue`, which is `Sendable` and crosses processes; these convert at the edge.
// Swift's bridging does the rest: `item as? String`, `item as? URL` and `item as? [String: Any]`
// read a loaded item, and `text as NSString` or `url as NSSecureCoding` make one.

extension NSItemProvider.ItemValue {
    /// The item `object` stands for, or nil if it is none of the classes an item provider
    /// carries.
    public init?(secureCoding object: any NSSecureCoding) {
        if let url = object as? NSURL {
            guard let url = url as URL? else { return nil }
            self = .url(url)
            return
        }
        guard let value = try? PropertyListValue(foundationObject: object) else { return nil }
        self = value.itemValue
    }

    /// The item as the Foundation object Apple's API gives.
    public var secureCodingObject: any NSSecureCoding {
        switch self {
        case .string(let string): NSString(string: string)
        case .url(let url): url as NSURL
        case .data(let data): data as NSData
        case .propertyList(let list): list.secureCodingObject
        }
    }

    /// Says what in `object` can't be carried, and names the classes an item may be, for an
    /// error about one that isn't an item.
    static func unsupported(_ object: Any) -> String {
        var what = "an item of class \(type(of: object))"
        if object is NSArray || object is NSDictionary, case .failure(let error) = Result(catching: { try PropertyListValue(foundationObject: object) }) {
            what += ", which \((error as? PropertyListError)?.reason ?? "\(error)"),"
        }
        return what + " can't be carried: an item provider's items are NSString, NSURL, NSData, NSNumber, NSDate,"
            + " and NSArray or NSDictionary of them, as Apple's secure coding allows by default; register data for other kinds"
    }
}

extension PropertyListValue {
    /// The value as the Foundation objects a property list is made of.
    var secureCodingObject: any NSSecureCoding {
        switch self {
        case .string(let value): NSString(string: value)
        case .integer(let value): NSNumber(value: value)
        case .real(let value): NSNumber(value: value)
        case .boolean(let value): NSNumber(value: value)
        case .date(let value): NSDate(timeIntervalSinceReferenceDate: value.timeIntervalSinceReferenceDate)
        case .data(let value): value as NSData
        case .array(let values): NSArray(array: values.map(\.secureCodingObject))
        case .dictionary(let entries): NSDictionary(dictionary: entries.mapValues(\.secureCodingObject))
        }
    }
}

extension Dictionary where Key == AnyHashable, Value == Any {
    /// The entries a property list can hold, keyed by their string keys, for a load's options
    /// to travel to the provider's handler, in this process or another. Keys that aren't
    /// strings and values that aren't property-list values are left out.
    var propertyListOptions: [String: PropertyListValue] {
        var options: [String: PropertyListValue] = [:]
        for (key, value) in self {
            guard let key = key.base as? String, let value = try? PropertyListValue(foundationObject: value) else { continue }
            options[key] = value
        }
        return options
    }
}

extension Dictionary where Key == String, Value == PropertyListValue {
    /// The entries as Foundation values, as Apple's load handler gets its options and an
    /// item its user info.
    var foundationDictionary: [AnyHashable: Any] {
        Dictionary<AnyHashable, Any>(uniqueKeysWithValues: map { (AnyHashable($0.key), $0.value.foundationObject) })
    }
}
