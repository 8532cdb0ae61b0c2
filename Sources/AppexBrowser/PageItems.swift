public import AppexCore
public import AppexItems
import Foundation

/// The items a browser request sends, built from what the user acted on as Safari builds
/// them (docs/browser.md, "The items"): one `NSExtensionItem` whose attachments are
///
/// - for the page, its URL (`public.url`). For an extension with a preprocessing file, the
///   same attachment is the web page too: it also has a property list
///   (`com.apple.property-list`) holding, under `NSExtensionJavaScriptPreprocessingResultsKey`,
///   what the page's script passed to its `completionFunction`, registered first. One
///   attachment of both types is what lets a rule with only
///   `NSExtensionActivationSupportsWebPageWithMaxCount`, or only `…WebURLWithMaxCount`,
///   accept the page. The page's title is the item's `attributedTitle`;
/// - for a link, the link's URL (`public.url`);
/// - for a selection, the text, as the item's content text and as a text attachment, as
///   every Appex host sends text;
/// - for an image, its bytes as its type (`public.png` for `image/png`; `public.image` for
///   a type no declaration names), suggested by the name in its address.
public enum PageItems {
    /// The items for `context`; `results` adds the web page to a page's items.
    public static func items(for context: PageContext, results: [String: PropertyListValue]?) -> [NSExtensionItem] {
        let item = NSExtensionItem()
        switch context.kind {
        case .page:
            if let title = context.title, !title.isEmpty { item.attributedTitle = NSAttributedString(string: title) }
            item.attachments = [results.map { webPage($0, url: context.pageURL) } ?? NSItemProvider(object: context.pageURL)]
        case .link:
            item.attachments = [NSItemProvider(object: context.linkURL ?? context.pageURL)]
        case .selection:
            let text = context.selection ?? ""
            item.attributedContentText = NSAttributedString(string: text)
            item.attachments = [NSItemProvider(object: text)]
        case .image:
            item.attachments = context.image.map { [image($0)] } ?? []
        }
        return [item]
    }

    /// An image's attachment. Without its bytes (when only listing), loading it fails.
    static func image(_ image: PageContext.Image) -> NSItemProvider {
        let provider = NSItemProvider()
        let type = UTType(mimeType: image.mimeType, conformingTo: .image)?.identifier ?? UTType.image.identifier
        let data = image.data
        provider.registerDataRepresentation(forTypeIdentifier: type, visibility: .all) { completionHandler in
            if let data {
                completionHandler(data, nil)
            } else {
                completionHandler(nil, CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the image's bytes were not sent"]))
            }
            return nil
        }
        // A `data:` URL's "path" is the image itself, megabytes of it: no name to suggest.
        let name = image.url.deletingPathExtension().lastPathComponent
        if image.url.scheme != "data", !name.isEmpty, name != "/", name.utf8.count <= 200 { provider.suggestedName = name }
        return provider
    }

    /// The web page's attachment: `results` under `NSExtensionJavaScriptPreprocessingResultsKey`,
    /// and the page's URL.
    static func webPage(_ results: [String: PropertyListValue], url: URL) -> NSItemProvider {
        let list = PropertyListValue.dictionary([NSExtensionJavaScriptPreprocessingResultsKey: .dictionary(results)])
        let provider = NSItemProvider(item: list.foundationObject as? NSDictionary, typeIdentifier: UTType.propertyList.identifier)
        provider.registerValue(forTypeIdentifier: UTType.url.identifier) { completionHandler in completionHandler(url, nil) }
        return provider
    }
}
