import AppexCore
import Foundation

/// What one load knows besides the payload: what was asked for, what the provider has, and
/// where temporary files go. It makes the load's errors, so every message names the
/// requested type and the registered ones.
struct LoadContext: Sendable {
    /// The type identifier the consumer asked for.
    let requested: String
    /// The provider's registered type identifiers, in order.
    let registered: [String]
    /// The representation serving the load.
    let representation: NSItemProvider.Representation
    var suggestedName: String? = nil
    var temporaryDirectory: URL = FileManager.default.temporaryDirectory

    func error(_ code: NSItemProvider.ErrorCode, _ reason: String, underlying: (any Error)? = nil) -> NSItemProviderError {
        NSItemProviderError(code, typeIdentifier: requested, registeredTypeIdentifiers: registered, reason: reason, underlyingError: underlying)
    }

    /// The name to give the representation's bytes in a file: the suggested name, made safe
    /// to use as one path component, with the registered type's filename extension.
    var temporaryFileName: String {
        var base = (suggestedName ?? "").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "")
        if base.isEmpty || base == "." || base == ".." { base = "item" }
        guard let fileExtension = UTType(representation.typeIdentifier)?.preferredFilenameExtension else { return base }
        if (base as NSString).pathExtension.caseInsensitiveCompare(fileExtension) == .orderedSame { return base }
        return "\(base).\(fileExtension)"
    }
}
