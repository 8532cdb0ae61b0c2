public import AppexHost
public import AppexItems
public import Foundation

extension NSExtensionItem {
    /// An item as a host app makes one for text: the text as its content text and as a
    /// `public.plain-text` attachment.
    public static func text(_ text: String) -> NSExtensionItem {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: text)
        item.attachments = [NSItemProvider(object: text as NSString)]
        return item
    }

    /// An item with a link: a `public.url` attachment.
    public static func url(_ url: URL) -> NSExtensionItem {
        let item = NSExtensionItem()
        item.attachments = [NSItemProvider(object: url as NSURL)]
        return item
    }

    /// An item with a file: an attachment of the file's type, handed over as the file.
    public static func file(_ url: URL) -> NSExtensionItem {
        let item = NSExtensionItem()
        item.attachments = [NSItemProvider(contentsOf: url)].compactMap { $0 }
        return item
    }
}

extension ExtensionRequestOutcome {
    /// The text the extension returned, if it completed: each returned item's text
    /// attachments, or its content text when it has none, in order.
    public func returnedText() async throws -> [String]? {
        guard let items else { return nil }
        var texts: [String] = []
        for item in items {
            let providers = (item.attachments ?? []).filter { $0.hasItemConformingToTypeIdentifier("public.plain-text") }
            if providers.isEmpty, let text = item.attributedContentText?.string { texts.append(text) }
            for provider in providers {
                // Through Any: Linux Swift warns that a cast from `any NSSecureCoding` to
                // String or Data always fails, though it succeeds (docs/porting.md).
                let loaded: Any = try await provider.loadItem(forTypeIdentifier: "public.plain-text")
                if let text = loaded as? String { texts.append(text) }
                else if let data = loaded as? Data { texts.append(String(decoding: data, as: UTF8.self)) }
            }
        }
        return texts
    }
}
