public import Foundation

// Apple's UniformTypeIdentifiers additions to URL: a file name made complete for a type,
// as when saving a download whose MIME type is known.

extension URL {
    /// The URL with `partialName` appended, and after it `contentType`'s preferred filename
    /// extension, unless `partialName` already has an extension of a type that conforms to
    /// `contentType` (`puppy.jpg` as an image stays `puppy.jpg`).
    public func appendingPathComponent(_ partialName: String, conformingTo contentType: UTType) -> URL {
        appendingPathComponent(Self.completeName(partialName, for: contentType))
    }

    /// Appends `partialName` completed for `contentType`, as ``appendingPathComponent(_:conformingTo:)`` does.
    public mutating func appendPathComponent(_ partialName: String, conformingTo contentType: UTType) {
        self = appendingPathComponent(partialName, conformingTo: contentType)
    }

    /// The URL with `contentType`'s preferred filename extension appended, unless its last
    /// component already has an extension of a type that conforms to `contentType`.
    public func appendingPathExtension(for contentType: UTType) -> URL {
        let name = lastPathComponent
        let completed = Self.completeName(name, for: contentType)
        return completed == name ? self : deletingLastPathComponent().appendingPathComponent(completed)
    }

    /// Appends `contentType`'s preferred filename extension, as ``appendingPathExtension(for:)`` does.
    public mutating func appendPathExtension(for contentType: UTType) {
        self = appendingPathExtension(for: contentType)
    }

    /// `name`, with `contentType`'s preferred extension unless it has one that fits already.
    private static func completeName(_ name: String, for contentType: UTType) -> String {
        let present = (name as NSString).pathExtension
        if !present.isEmpty, let type = UTType(filenameExtension: present), type.conforms(to: contentType) {
            return name
        }
        guard let preferred = contentType.preferredFilenameExtension else { return name }
        return name + "." + preferred
    }
}
