public import Foundation

/// What the user acted on in the browser: the page, a link, a selection or an image, as the
/// Appex browser extension describes it. The host builds the request's items from it
/// (``PageItems``), as Safari builds them (docs/browser.md, "The items").
public struct PageContext: Sendable, Hashable {
    /// Where the user clicked.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The toolbar button, or the context menu on the page itself.
        case page
        /// The context menu on a link.
        case link
        /// The context menu on selected text.
        case selection
        /// The context menu on an image.
        case image
    }

    /// An image the user acted on: its address, its type, and its bytes, which the browser
    /// fetched (none when the browser only asks which extensions would take it).
    public struct Image: Sendable, Hashable {
        public var url: URL
        /// The image's MIME type, such as `image/png`.
        public var mimeType: String
        public var data: Data?

        public init(url: URL, mimeType: String, data: Data? = nil) {
            self.url = url
            self.mimeType = mimeType
            self.data = data
        }
    }

    public var kind: Kind
    /// The page's URL.
    public var pageURL: URL
    /// The page's title.
    public var title: String?
    /// The selected text, for ``Kind/selection``.
    public var selection: String?
    /// The link's URL, for ``Kind/link``.
    public var linkURL: URL?
    /// The image, for ``Kind/image``.
    public var image: Image?

    public init(kind: Kind, pageURL: URL, title: String? = nil, selection: String? = nil, linkURL: URL? = nil, image: Image? = nil) {
        self.kind = kind
        self.pageURL = pageURL
        self.title = title
        self.selection = selection
        self.linkURL = linkURL
        self.image = image
    }

    /// The longest title taken, in characters; a longer one is cut.
    public static let maximumTitleLength = 1000

    /// The largest image taken, in bytes: 5 MiB, whose base64 fits in a message from the
    /// browser with room to spare. The extension refuses a larger one before sending it.
    public static let maximumImageLength = 5 << 20
}
