public import AppexCore
import AppexLocking
public import Foundation

/// One item of a request: a title, content text, user info and attachments, as Apple's
/// `NSExtensionItem`.
///
/// A host sends items as a request's input; an extension reads them from its context and
/// may complete the request with items of its own.
///
/// ```swift
/// let item = NSExtensionItem()
/// item.attributedTitle = NSAttributedString(string: "Trip photos")
/// item.attachments = [NSItemProvider(contentsOf: photoURL)!]
/// item.userInfo?[NSExtensionItemAttributedTitleKey]   // the title, as Apple keeps it
/// ```
///
/// As on Apple's platforms, the title and content text live in ``userInfo`` under
/// ``NSExtensionItemAttributedTitleKey`` and ``NSExtensionItemAttributedContentTextKey``:
/// setting one is visible there, and setting ``userInfo`` replaces both.
///
/// Differences from Apple's, because values here must be `Sendable` and able to cross a
/// process boundary:
/// - ``userInfo`` holds property-list values (`PropertyListValue`), not `Any`.
/// - An attributed string is kept as text plus the attributes whose values are property-list
///   types (strings, numbers, dates, data, and arrays and dictionaries of them); other
///   attributes are dropped when it is set. In ``userInfo`` a string with no attributes is a
///   plain string, and one with attributes a dictionary (see ``attributedTitle``).
/// - The attachments are not in ``userInfo``, since providers are not property-list values,
///   so setting ``userInfo`` leaves them alone.
public final class NSExtensionItem: Sendable {
    private struct State {
        var userInfo: [String: PropertyListValue]?
        var attachments: [NSItemProvider]?
    }

    private let state = Locked(State())

    /// An empty item.
    public init() {}

    /// The item's title, kept in ``userInfo`` under ``NSExtensionItemAttributedTitleKey``.
    ///
    /// Each read makes a new `NSAttributedString`. In ``userInfo`` the title is a string when
    /// it has no attributes, and otherwise a dictionary with the text under `string` and
    /// its attribute runs under `runs`, each a dictionary of `location` and `length` in
    /// UTF-16 code units and the run's `attributes`.
    public var attributedTitle: NSAttributedString? {
        get { attributedString(forKey: NSExtensionItemAttributedTitleKey) }
        set { setAttributedString(newValue, forKey: NSExtensionItemAttributedTitleKey) }
    }

    /// Text describing the item's content, kept in ``userInfo`` under
    /// ``NSExtensionItemAttributedContentTextKey``, as ``attributedTitle`` is.
    public var attributedContentText: NSAttributedString? {
        get { attributedString(forKey: NSExtensionItemAttributedContentTextKey) }
        set { setAttributedString(newValue, forKey: NSExtensionItemAttributedContentTextKey) }
    }

    /// The item's attachments, each a provider of typed data.
    public var attachments: [NSItemProvider]? {
        get { state.withLock { $0.attachments } }
        set { state.withLock { $0.attachments = newValue } }
    }

    /// The item's values by key, including the title and content text.
    ///
    /// Setting it replaces the title and content text with what it holds under their keys,
    /// as Apple's does.
    public var userInfo: [String: PropertyListValue]? {
        get { state.withLock { $0.userInfo } }
        set { state.withLock { $0.userInfo = newValue } }
    }

    private func attributedString(forKey key: String) -> NSAttributedString? {
        state.withLock { $0.userInfo?[key] }.flatMap(AttributedStringCoding.decode)
    }

    private func setAttributedString(_ string: NSAttributedString?, forKey key: String) {
        let value = string.map(AttributedStringCoding.encode)
        state.withLock { state in
            if value == nil, state.userInfo == nil { return }
            state.userInfo = state.userInfo ?? [:]
            state.userInfo?[key] = value
        }
    }
}
