import AppexCore
public import Foundation

/// A class whose instances an item provider can offer as data: Apple's
/// `NSItemProviderWriting`. ``NSItemProvider/init(object:)-(NSItemProviderWriting)`` and
/// ``NSItemProvider/registerObject(_:visibility:)`` register a data representation for each
/// of the object's writable types, loaded with ``loadData(withTypeIdentifier:forItemProviderCompletionHandler:)``
/// on a background queue when a consumer asks. `NSString` and `NSURL` adopt it, and are
/// registered as items, as Apple's are.
public protocol NSItemProviderWriting: NSObjectProtocol {
    /// The types instances of the class can give, most preferred first.
    static var writableTypeIdentifiersForItemProvider: [String] { get }

    /// The types this instance can give; by default, the class's.
    var writableTypeIdentifiersForItemProvider: [String] { get }

    /// Who may load the representation of `typeIdentifier` of any instance; by default, everyone.
    static func itemProviderVisibilityForRepresentation(withTypeIdentifier typeIdentifier: String) -> NSItemProviderRepresentationVisibility

    /// Who may load the representation of `typeIdentifier` of this instance; by default, the
    /// class's answer.
    func itemProviderVisibilityForRepresentation(withTypeIdentifier typeIdentifier: String) -> NSItemProviderRepresentationVisibility

    /// Gives the data of `typeIdentifier`, one of the writable types, to `completionHandler`
    /// once; returns a `Progress` if the work can be observed or cancelled.
    func loadData(withTypeIdentifier typeIdentifier: String,
                  forItemProviderCompletionHandler completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress?
}

extension NSItemProviderWriting {
    public var writableTypeIdentifiersForItemProvider: [String] { Self.writableTypeIdentifiersForItemProvider }

    public static func itemProviderVisibilityForRepresentation(withTypeIdentifier typeIdentifier: String) -> NSItemProviderRepresentationVisibility { .all }

    public func itemProviderVisibilityForRepresentation(withTypeIdentifier typeIdentifier: String) -> NSItemProviderRepresentationVisibility {
        Self.itemProviderVisibilityForRepresentation(withTypeIdentifier: typeIdentifier)
    }
}

extension NSString: NSItemProviderWriting {
    public static var writableTypeIdentifiersForItemProvider: [String] {
        [UTType.utf8PlainText.identifier, UTType.plainText.identifier]
    }

    /// The text in UTF-8.
    public func loadData(withTypeIdentifier typeIdentifier: String,
                         forItemProviderCompletionHandler completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress? {
        completionHandler(Data(String(self).utf8), nil)
        return nil
    }
}

extension NSURL: NSItemProviderWriting {
    public static var writableTypeIdentifiersForItemProvider: [String] {
        [UTType.url.identifier]
    }

    /// The URL's absolute string in UTF-8.
    public func loadData(withTypeIdentifier typeIdentifier: String,
                         forItemProviderCompletionHandler completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress? {
        completionHandler(Data(absoluteString.utf8), nil)
        return nil
    }
}
