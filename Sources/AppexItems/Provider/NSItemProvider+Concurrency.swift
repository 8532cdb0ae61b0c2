public import AppexCore
public import Foundation

extension NSItemProvider {
    /// Loads the item for `typeIdentifier`; see ``loadItem(forTypeIdentifier:options:completionHandler:)``.
    public func loadItem(
        forTypeIdentifier typeIdentifier: String,
        options: [AnyHashable: Any]? = nil
    ) async throws -> any NSSecureCoding {
        let value = try await withCheckedThrowingContinuation { continuation in
            load(typeIdentifier, options: options?.propertyListOptions, convert: { payload, _ in payload.item.itemValue }) { continuation.resume(with: $0) }
        }
        return value.secureCodingObject
    }

    /// Loads the bytes of `typeIdentifier`; see ``loadDataRepresentation(forTypeIdentifier:completionHandler:)``.
    public func loadDataRepresentation(forTypeIdentifier typeIdentifier: String) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            load(typeIdentifier, convert: { payload, context in try payload.data(in: context) }) { continuation.resume(with: $0) }
        }
    }

    /// Loads the bytes of `contentType`, as Apple's `loadDataRepresentation(for:)`.
    public func loadDataRepresentation(for contentType: UTType) async throws -> Data {
        try await loadDataRepresentation(forTypeIdentifier: contentType.identifier)
    }

    /// Loads a temporary file of `contentType`, runs `body` with its URL, and deletes the
    /// file when `body` returns or throws.
    ///
    /// Apple's async file load returns a URL whose file is already deleted, because the
    /// file lives only as long as a completion handler. Here the file lives exactly as long
    /// as `body`, so it is always there when you use it:
    ///
    /// ```swift
    /// let pages = try await provider.withFileRepresentation(for: .pdf) { url in
    ///     try PDF(contentsOf: url).pageCount
    /// }
    /// ```
    public func withFileRepresentation<Output>(
        for contentType: UTType,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (URL) async throws -> Output
    ) async throws -> Output {
        let file = try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
            load(contentType.identifier, convert: { payload, context in try payload.temporaryFile(in: context) }) {
                continuation.resume(with: $0)
            }
        }
        defer { file.remove() }
        return try await body(file.url)
    }
}
