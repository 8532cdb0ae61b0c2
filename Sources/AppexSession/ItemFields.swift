import AppexItems
import AppexWire
import AppexCore
import Foundation

/// The fields of an ``NSExtensionItem`` other than its attachments, to and from a ``WireItem``.
///
/// The item keeps its title and content text in `userInfo` (as Apple's does); on the wire
/// they have fields of their own, so a peer in another language reads them directly.
enum ItemFields {
    /// A wire item with `item`'s title, content text and user info, and `attachments`.
    static func wireItem(_ item: NSExtensionItem, attachments: [WireAttachment]) -> WireItem {
        var userInfo = item.propertyListUserInfo ?? [:]
        let title = userInfo.removeValue(forKey: NSExtensionItemAttributedTitleKey).flatMap(attributedText)
        let content = userInfo.removeValue(forKey: NSExtensionItemAttributedContentTextKey).flatMap(attributedText)
        return WireItem(attributedTitle: title, attributedContentText: content, userInfo: userInfo, attachments: attachments)
    }

    /// An item with `wire`'s title, content text and user info, and `attachments`.
    static func item(_ wire: WireItem, attachments: [NSItemProvider]) -> NSExtensionItem {
        let item = NSExtensionItem()
        var userInfo = wire.userInfo
        if let title = wire.attributedTitle { userInfo[NSExtensionItemAttributedTitleKey] = propertyList(title) }
        if let content = wire.attributedContentText { userInfo[NSExtensionItemAttributedContentTextKey] = propertyList(content) }
        if !userInfo.isEmpty || wire.attributedTitle != nil { item.propertyListUserInfo = userInfo }
        if !attachments.isEmpty { item.attachments = attachments }
        return item
    }

    /// `value`, an attributed string as `NSExtensionItem` keeps it, as wire text.
    private static func attributedText(_ value: PropertyListValue) -> AttributedText? {
        AttributedStringCoding.parts(of: value).map { text, runs in
            AttributedText(text: text, runs: runs.map {
                AttributedText.Run(location: $0.location, length: $0.length, attributes: PlistDictionary($0.attributes))
            })
        }
    }

    /// Wire text as `NSExtensionItem` keeps an attributed string.
    private static func propertyList(_ text: AttributedText) -> PropertyListValue {
        AttributedStringCoding.value(text: text.text, runs: text.runs.map {
            AttributedStringCoding.Run(location: $0.location, length: $0.length, attributes: $0.attributes.entries)
        })
    }
}
