public import AppexCore
import AppexLocking
import AppexSystem
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
/// - ``userInfo`` keeps property-list values only (``propertyListUserInfo``).
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

    /// The item's values by key, including the title and content text: Apple's `userInfo`.
    ///
    /// Each read gives Foundation values (`String`, `Int`, `Double`, `Bool`, `Date`, `Data`,
    /// and arrays and dictionaries of them), and the title and content text as
    /// `NSAttributedString`s, so `userInfo?["count"] as? Int` reads as on Apple's platforms.
    /// Setting it replaces the title and content text with what it holds under their keys
    /// (an `NSAttributedString` or a `String`), as Apple's does. Only string keys with
    /// property-list values can cross to another process, as Apple's secure coding allows:
    /// others are left out when it is set, each named in a line on standard error.
    public var userInfo: [AnyHashable: Any]? {
        get {
            guard var entries = propertyListUserInfo?.foundationDictionary else { return nil }
            for key in Self.attributedKeys where entries[key] != nil {
                entries[key] = attributedString(forKey: key)
            }
            return entries
        }
        set { propertyListUserInfo = newValue.map(Self.propertyListEntries) }
    }

    /// The keys whose values are attributed strings.
    private static let attributedKeys = [NSExtensionItemAttributedTitleKey, NSExtensionItemAttributedContentTextKey]

    /// ``userInfo`` as property-list values, as Appex keeps and carries it.
    public var propertyListUserInfo: [String: PropertyListValue]? {
        get { state.withLock { $0.userInfo } }
        set { state.withLock { $0.userInfo = newValue } }
    }

    /// The entries of `userInfo` that can cross a process boundary; says which are left out.
    private static func propertyListEntries(_ userInfo: [AnyHashable: Any]) -> [String: PropertyListValue] {
        var entries: [String: PropertyListValue] = [:]
        for (key, value) in userInfo {
            guard let name = key.base as? String else {
                StandardError.write(line: "NSExtensionItem.userInfo: the key \(key) is not a string, so its entry is left out; an item's keys are strings")
                continue
            }
            if attributedKeys.contains(name), let text = value as? NSAttributedString {
                entries[name] = AttributedStringCoding.encode(text)
                continue
            }
            do {
                entries[name] = try PropertyListValue(foundationObject: value)
            } catch {
                StandardError.write(line: "NSExtensionItem.userInfo: the entry \(name) is left out: it \(error.reason); an item carries property-list values")
            }
        }
        return entries
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
