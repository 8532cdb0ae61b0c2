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

    public init(kind: Kind, pageURL: URL, title: String? = nil, selection: String? = nil, linkURL: URL? = nil) {
        self.kind = kind
        self.pageURL = pageURL
        self.title = title
        self.selection = selection
        self.linkURL = linkURL
    }

    /// The longest title taken, in characters; a longer one is cut.
    public static let maximumTitleLength = 1000
}
