public import AppexCore
public import Foundation

extension NSItemProvider {
    /// A provider with one item, as Apple's `init(item:typeIdentifier:)`: pass an
    /// `NSString`, `NSURL`, `NSData`, `NSNumber`, `NSDate`, or an `NSArray` or
    /// `NSDictionary` of those (`text as NSString`, `url as NSSecureCoding`).
    ///
    /// Loading the type returns the item; loading it as data or as a file coerces it (see
    /// ``ItemValue``). Apple requires a type when there is an item; here a `nil`
    /// `typeIdentifier` registers the item under its kind's type: `public.utf8-plain-text`
    /// for text, `public.file-url` or `public.url` for a URL, `public.data` for data and
    /// `com.apple.property-list` for the rest. A `nil` item makes an empty provider. An item
    /// of another class is registered, and fails every load with
    /// ``NSItemProvider/ErrorCode/unexpectedValueClassError``, naming its class.
    public convenience init(item: (any NSSecureCoding)?, typeIdentifier: String?) {
        self.init()
        guard let item else { return }
        guard let value = ItemValue(secureCoding: item) else {
            registerUnavailable(forTypeIdentifier: typeIdentifier ?? UTType.data.identifier, reason: ItemValue.unsupported(item))
            return
        }
        registerValue(value.value, forTypeIdentifiers: [typeIdentifier ?? value.defaultTypeIdentifier])
    }

    /// A provider of text, as Apple's `init(object:)` with an `NSString`: registered as
    /// `public.utf8-plain-text`, then `public.plain-text`.
    public convenience init(object: String) {
        self.init()
        registerValue(object, forTypeIdentifiers: [UTType.utf8PlainText.identifier, UTType.plainText.identifier])
    }

    /// A provider of a URL, as Apple's `init(object:)` with an `NSURL`: registered as
    /// `public.file-url` then `public.url` for a file URL, and as `public.url` otherwise.
    ///
    /// Loading it as an item gives the URL; as data, its absolute string in UTF-8. To offer
    /// a file's contents, use ``init(contentsOf:)`` instead.
    public convenience init(object: URL) {
        self.init()
        let types = object.isFileURL ? [UTType.fileURL, UTType.url] : [UTType.url]
        registerValue(object, forTypeIdentifiers: types.map(\.identifier))
    }

    /// A provider of bytes, registered as `public.data`.
    ///
    /// Prefer ``registerDataRepresentation(forTypeIdentifier:visibility:loadHandler:)`` with
    /// the bytes' real type, so consumers can tell an image from a document.
    public convenience init(object: Data) {
        self.init()
        registerValue(object, forTypeIdentifiers: [UTType.data.identifier])
    }

    /// A provider of a file's contents, as Apple's `init?(contentsOf:)`; `nil` when `fileURL`
    /// is nil, is not a file URL, or names no file. It takes `URL!`, as Apple's does, so an
    /// optional URL may be given.
    ///
    /// The type comes from the filename extension, and is `public.data` when the extension
    /// names no declared type (`public.folder` for a folder). ``suggestedName`` is set to
    /// the file's name without its extension, which Apple's leaves unset. The file is read
    /// when a consumer loads it, not now.
    public convenience init?(contentsOf fileURL: URL!) {
        var isDirectory: ObjCBool = false
        guard let fileURL, fileURL.isFileURL, FileManager.default.fileExists(atPath: fileURL.path, isDirectory: &isDirectory) else { return nil }
        self.init(contentsOf: fileURL, contentType: Self.contentType(of: fileURL, isDirectory: isDirectory.boolValue))
    }

    /// A provider of a file's contents as `contentType`, as Apple's
    /// `init(contentsOf:contentType:openInPlace:coordinated:visibility:)`.
    ///
    /// A `nil` type is worked out from the filename extension, as ``init(contentsOf:)`` does.
    /// The file need not exist yet; a load fails if it is missing then.
    public convenience init(
        contentsOf fileURL: URL,
        contentType: UTType?,
        openInPlace: Bool = false,
        coordinated: Bool = false,
        visibility: NSItemProviderRepresentationVisibility = .all
    ) {
        self.init()
        let type = contentType ?? Self.contentType(of: fileURL, isDirectory: fileURL.hasDirectoryPath)
        suggestedName = fileURL.deletingPathExtension().lastPathComponent
        registerFileRepresentation(
            forTypeIdentifier: type.identifier, fileOptions: openInPlace ? .openInPlace : [], visibility: visibility
        ) { completionHandler in
            completionHandler(fileURL, coordinated, nil)
            return nil
        }
    }

    /// The declared type for a file's extension, or `public.data` (`public.folder`) when
    /// there is none, as Apple's documentation says.
    private static func contentType(of fileURL: URL, isDirectory: Bool) -> UTType {
        let fallback: UTType = isDirectory ? .folder : .data
        guard let type = UTType(filenameExtension: fileURL.pathExtension, conformingTo: isDirectory ? .directory : .data),
            type.isDeclared
        else { return fallback }
        return type
    }
}
