public import Foundation

// Apple's UniformTypeIdentifiers additions to URL resource values. Foundation on Linux fills
// a `URLResourceValues` with the keys it knows and ignores the others, and its storage can't
// be filled from outside Foundation, so the content type can be asked for but not read there.

extension URLResourceKey {
    /// The resource's type, as Apple names the key (`NSURLContentTypeKey`). Foundation on
    /// Linux ignores it: `resourceValues(forKeys:)` returns nothing for it.
    public static let contentTypeKey = URLResourceKey(rawValue: "NSURLContentTypeKey")
}

extension URLResourceValues {
    /// The resource's type. Unavailable, so that code reading it fails to build with what to
    /// use instead, rather than always reading `nil` (docs/porting.md).
    @available(*, unavailable, message: "Foundation on Linux computes no content type; use UTType(filenameExtension: url.pathExtension), or UTType.data when that is nil")
    public var contentType: UTType? { nil }
}
