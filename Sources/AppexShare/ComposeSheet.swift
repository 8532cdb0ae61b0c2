import Foundation

/// The compose sheet of a Share extension, as the extension describes it and the host
/// draws it: Apple's standard sheet of `SLComposeServiceViewController`, as data.
///
/// The extension sends it as the point message ``ComposeMessage/sheet`` each time it
/// changes; the host never runs extension code, and the extension never owns the screen.
public struct ComposeSheet: Codable, Sendable, Hashable {
    /// One row under the text: `SLComposeSheetConfigurationItem`'s state.
    public struct ConfigurationItem: Codable, Sendable, Hashable {
        public var title: String
        public var value: String
        /// The value is still being worked out: the host shows that it is pending.
        public var valuePending: Bool
        /// A tap does something (the item has a tap handler).
        public var isTappable: Bool

        public init(title: String, value: String = "", valuePending: Bool = false, isTappable: Bool = false) {
            self.title = title
            self.value = value
            self.valuePending = valuePending
            self.isTappable = isTappable
        }
    }

    /// A list a configuration item pushed, to pick one option from.
    public struct OptionList: Codable, Sendable, Hashable {
        public var title: String
        public var options: [String]
        /// The option shown as chosen, if any.
        public var selected: Int?

        public init(title: String, options: [String], selected: Int? = nil) {
            self.title = title
            self.options = options
            self.selected = selected
        }
    }

    /// The sheet's title; nil shows the extension's display name.
    public var title: String?
    /// The text the user is composing.
    public var contentText: String
    /// Shown, dimmed, while the text is empty.
    public var placeholder: String?
    /// Set to show a character count; below zero, the host shows it as over the limit.
    public var charactersRemaining: Int?
    /// Whether Post is enabled: the extension's `isContentValid()`.
    public var isContentValid: Bool
    public var configurationItems: [ConfigurationItem]
    /// The list on top of the configuration stack, if an item pushed one.
    public var optionList: OptionList?
    /// The sequence number of the host's message this sheet answers, or 0 if the
    /// extension sent it on its own.
    public var answering: UInt64

    public init(title: String? = nil, contentText: String = "", placeholder: String? = nil, charactersRemaining: Int? = nil,
                isContentValid: Bool = true, configurationItems: [ConfigurationItem] = [], optionList: OptionList? = nil,
                answering: UInt64 = 0) {
        self.title = title
        self.contentText = contentText
        self.placeholder = placeholder
        self.charactersRemaining = charactersRemaining
        self.isContentValid = isContentValid
        self.configurationItems = configurationItems
        self.optionList = optionList
        self.answering = answering
    }
}

extension ComposeSheet {
    /// The most configuration items a sheet may have, and options a list may have: a sheet
    /// past them is refused as malformed.
    public static let maximumConfigurationItems = 32
    public static let maximumOptions = 1000
    /// The longest title, value or option, in characters.
    public static let maximumLabelLength = 200

    /// Why the sheet can't be drawn, or nil if it can.
    public var problem: String? {
        if configurationItems.count > Self.maximumConfigurationItems {
            return "it has \(configurationItems.count) configuration items; a sheet has at most \(Self.maximumConfigurationItems)"
        }
        if let list = optionList, list.options.count > Self.maximumOptions {
            return "its option list has \(list.options.count) options; a list has at most \(Self.maximumOptions)"
        }
        if let list = optionList, let selected = list.selected, !list.options.indices.contains(selected) {
            return "its option list selects option \(selected) of \(list.options.count)"
        }
        let labels = [title ?? "", placeholder ?? "", optionList?.title ?? ""] + configurationItems.flatMap { [$0.title, $0.value] }
            + (optionList?.options ?? [])
        if let long = labels.first(where: { $0.count > Self.maximumLabelLength }) {
            return "a label is \(long.count) characters long (\(long.prefix(20))…); labels have at most \(Self.maximumLabelLength)"
        }
        return nil
    }
}
