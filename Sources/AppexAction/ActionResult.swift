import AppexCore
public import AppexItems
public import Foundation

/// What an Action extension returned, loaded: the content a host puts in place of what it
/// sent, as Apple's hosts replace a selection with an Action's items.
///
/// ```swift
/// guard case .completed(let items) = try await action.request(withInputItems: [item]) else { return }
/// let result = try await ActionResult.load(items, savingFilesIn: folder)
/// for part in result.parts { … }
/// ```
///
/// Action extensions need nothing of their own: they adopt `NSExtensionRequestHandling` and
/// answer with `completeRequest(returningItems:)`, with or without an interface.
public struct ActionResult: Sendable, Hashable {
    /// One piece of returned content.
    public enum Part: Sendable, Hashable {
        /// Text, and the name the extension suggests for it as a file.
        case text(String, suggestedName: String?)
        /// A URL.
        case url(URL)
        /// A file, saved where ``load(_:savingFilesIn:)`` was told.
        case file(URL)
    }

    /// The returned content, in the order of the items and their attachments.
    public var parts: [Part]

    public init(parts: [Part]) {
        self.parts = parts
    }

    /// Loads `items`: each attachment as a URL if it is one, as text if it is text, and
    /// otherwise as a file copied into `folder` under its suggested name. An item without
    /// attachments gives its content text. Throws the first load that fails.
    public static func load(_ items: [NSExtensionItem], savingFilesIn folder: URL) async throws -> ActionResult {
        var parts: [Part] = []
        for item in items {
            let attachments = item.attachments ?? []
            if attachments.isEmpty, let text = item.attributedContentText?.string, !text.isEmpty {
                parts.append(.text(text, suggestedName: nil))
            }
            for provider in attachments {
                if let part = try await load(provider, savingIn: folder) { parts.append(part) }
            }
        }
        return ActionResult(parts: parts)
    }

    private static func load(_ provider: NSItemProvider, savingIn folder: URL) async throws -> Part? {
        if provider.hasItemConformingToTypeIdentifier(UTType.url.identifier),
           !provider.hasItemConformingToTypeIdentifier(UTType.fileURL.identifier),
           let url = try await provider.loadItem(forTypeIdentifier: UTType.url.identifier) as? NSURL as URL? {
            return .url(url)
        }
        if provider.hasItemConformingToTypeIdentifier(UTType.plainText.identifier) {
            let data = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier)
            return .text(String(decoding: data, as: UTF8.self), suggestedName: provider.suggestedName)
        }
        guard let type = provider.registeredTypeIdentifiers.lazy.compactMap({ UTType($0) }).first else { return nil }
        return .file(try await provider.withFileRepresentation(for: type) { url in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let destination = folder.appendingPathComponent(url.lastPathComponent)
            try? FileManager.default.removeItem(at: destination)
            try FileManager.default.copyItem(at: url, to: destination)
            return destination
        })
    }
}
