import AppexCore
public import AppexItems
import Foundation

extension BrowserReply.PageUpdate {
    /// What the items an extension completed with ask of the page: the first property list
    /// holding `NSExtensionJavaScriptFinalizeArgumentKey` gives `finalize` its argument, and
    /// the first text replaces the selection.
    ///
    /// Throws when the finalize argument can't be read, or the text is longer than
    /// ``maximumTextLength``: the page is left as it was, and the browser says why.
    public static func reading(_ items: [NSExtensionItem]) async throws(BrowserMessageError) -> Self {
        var update = Self()
        for item in items {
            for provider in item.attachments ?? [] {
                if update.finalize == nil, provider.hasItemConformingToTypeIdentifier(UTType.propertyList.identifier) {
                    update.finalize = try await finalizeArgument(of: provider)
                } else if update.text == nil, provider.hasItemConformingToTypeIdentifier(UTType.plainText.identifier) {
                    update.text = try await text(of: provider)
                }
            }
            if update.text == nil, item.attachments?.isEmpty ?? true, let text = item.attributedContentText?.string, !text.isEmpty {
                update.text = try checked(text)
            }
        }
        return update
    }

    /// The longest text that goes back to the page, in bytes of UTF-8: what fits in a
    /// browser's message from its native host, with room for the rest of the reply.
    public static let maximumTextLength = 900_000

    private static func finalizeArgument(of provider: NSItemProvider) async throws(BrowserMessageError) -> PropertyListValue? {
        let list: PropertyListValue
        do {
            let bytes = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.propertyList.identifier)
            list = try PropertyListValue(decoding: bytes)
        } catch {
            throw BrowserMessageError("the extension returned a property list that can't be read: \(error)")
        }
        return list.dictionaryValue?[NSExtensionJavaScriptFinalizeArgumentKey]
    }

    private static func text(of provider: NSItemProvider) async throws(BrowserMessageError) -> String {
        do {
            let bytes = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier)
            guard bytes.count <= maximumTextLength else {
                throw BrowserMessageError("the extension returned \(bytes.count) bytes of text; at most \(maximumTextLength) go back into a page")
            }
            return String(decoding: bytes, as: UTF8.self)
        } catch let error as BrowserMessageError {
            throw error
        } catch {
            throw BrowserMessageError("the extension returned text that can't be loaded: \(error)")
        }
    }

    private static func checked(_ text: String) throws(BrowserMessageError) -> String {
        guard text.utf8.count <= maximumTextLength else {
            throw BrowserMessageError("the extension returned \(text.utf8.count) bytes of text; at most \(maximumTextLength) go back into a page")
        }
        return text
    }
}
