public import AppexCore
public import Foundation

/// A value that an ``NSItemProvider`` can hold as an item: what Apple's API takes as
/// `NSSecureCoding`.
///
/// Linux has no secure-coding bridge for arbitrary objects, so an item is one of the
/// property-list-like values Apple's callers pass in practice: `String`, `URL`, `Data`,
/// `Int`, `Double`, `Bool` and `Date` (Apple's `NSNumber` and `NSDate`), and
/// `PropertyListValue` for arrays and dictionaries. Each maps to an
/// ``NSItemProvider/ItemValue``, the closed set the provider coerces and the transport
/// carries. Code written for Apple's platforms reads a loaded item the same way:
///
/// ```swift
/// provider.loadItem(forTypeIdentifier: "public.url", options: nil) { item, error in
///     if let url = item as? URL { open(url) }
/// }
/// ```
///
/// You may conform your own types; a loaded item that crossed from another process
/// arrives as the value ``NSItemProvider/ItemValue/value`` gives, not as your type.
public protocol NSItemProviderValue: Sendable {
    /// This value as one of the kinds an item provider holds.
    var itemValue: NSItemProvider.ItemValue { get }
}

extension String: NSItemProviderValue {
    public var itemValue: NSItemProvider.ItemValue { .string(self) }
}

extension URL: NSItemProviderValue {
    public var itemValue: NSItemProvider.ItemValue { .url(self) }
}

extension Data: NSItemProviderValue {
    public var itemValue: NSItemProvider.ItemValue { .data(self) }
}

extension Int: NSItemProviderValue {
    public var itemValue: NSItemProvider.ItemValue { .propertyList(.integer(self)) }
}

extension Double: NSItemProviderValue {
    public var itemValue: NSItemProvider.ItemValue { .propertyList(.real(self)) }
}

extension Bool: NSItemProviderValue {
    public var itemValue: NSItemProvider.ItemValue { .propertyList(.boolean(self)) }
}

extension Date: NSItemProviderValue {
    public var itemValue: NSItemProvider.ItemValue { .propertyList(.date(self)) }
}

extension PropertyListValue: NSItemProviderValue {
    /// A string or data stays a string or data item; anything else is a property-list item.
    public var itemValue: NSItemProvider.ItemValue {
        switch self {
        case .string(let value): .string(value)
        case .data(let value): .data(value)
        default: .propertyList(self)
        }
    }
}
