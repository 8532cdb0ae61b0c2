import AppexCore
public import Foundation

/// A class whose instances an item provider can make from data: Apple's
/// `NSItemProviderReading`. ``NSItemProvider/loadObject(ofClass:completionHandler:)-(NSItemProviderReading.Type,_)``
/// loads the data of the first registered type that conforms to one of the class's
/// readable types, and makes the object from it. `NSString` and `NSURL` adopt it, so
/// `loadObject(ofClass: String.self)` and `loadObject(ofClass: URL.self)` work.
public protocol NSItemProviderReading: NSObjectProtocol {
    /// The types the class reads, most preferred first. A registered type that conforms to
    /// one of them can be read.
    static var readableTypeIdentifiersForItemProvider: [String] { get }

    /// Makes an instance from `data` of `typeIdentifier`, one of the readable types or a
    /// type that conforms to one.
    static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> Self
}

extension NSString: NSItemProviderReading {
    public static var readableTypeIdentifiersForItemProvider: [String] {
        [UTType.utf8PlainText.identifier, UTType.utf16PlainText.identifier, UTType.plainText.identifier]
    }

    /// The text: UTF-16 for the UTF-16 types, UTF-8 otherwise.
    public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> Self {
        let encoding: String.Encoding = UTType(typeIdentifier)?.conforms(to: .utf16PlainText) == true ? .utf16 : .utf8
        guard let text = String(data: data, encoding: encoding), let object = NSString(string: text) as? Self else {
            throw ObjectReadingError(className: "\(self)", typeIdentifier: typeIdentifier, reason: "its \(data.count) bytes are not text in \(encoding)")
        }
        return object
    }
}

extension NSURL: NSItemProviderReading {
    public static var readableTypeIdentifiersForItemProvider: [String] {
        [UTType.fileURL.identifier, UTType.url.identifier]
    }

    /// The URL whose absolute string the data is, in UTF-8.
    public static func object(withItemProviderData data: Data, typeIdentifier: String) throws -> Self {
        let string = String(decoding: data, as: UTF8.self)
        guard let url = NSURL(string: string), url.scheme != nil, let object = url as? Self else {
            throw ObjectReadingError(className: "\(self)", typeIdentifier: typeIdentifier, reason: "\"\(string.prefix(200))\" is not an absolute URL")
        }
        return object
    }
}

/// Why a class could not make an object from an item's data.
struct ObjectReadingError: Error, CustomStringConvertible, LocalizedError {
    let className: String
    let typeIdentifier: String
    let reason: String

    var description: String { "\(className) could not be made from the \(typeIdentifier) data: \(reason)" }
    var errorDescription: String? { description }
}
