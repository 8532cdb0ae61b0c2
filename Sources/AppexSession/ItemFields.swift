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
        var userInfo = item.userInfo ?? [:]
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
        if !userInfo.isEmpty || wire.attributedTitle != nil { item.userInfo = userInfo }
        if !attachments.isEmpty { item.attachments = attachments }
        return item
    }

    /// `value`, an attributed string as `NSExtensionItem` keeps it, as wire text.
    private static func attributedText(_ value: PropertyListValue) -> AttributedText? {
        if let text = value.stringValue { return AttributedText(text: text) }
        guard let text = value["string"]?.stringValue else { return nil }
        let runs = (value["runs"]?.arrayValue ?? []).compactMap { run -> AttributedText.Run? in
            guard let location = run["location"]?.integerValue, let length = run["length"]?.integerValue,
                  let attributes = run["attributes"]?.dictionaryValue, location >= 0, length >= 0 else { return nil }
            return AttributedText.Run(location: location, length: length, attributes: PlistDictionary(attributes))
        }
        return AttributedText(text: text, runs: runs)
    }

    /// Wire text as `NSExtensionItem` keeps an attributed string.
    private static func propertyList(_ text: AttributedText) -> PropertyListValue {
        guard !text.runs.isEmpty else { return .string(text.text) }
        let runs: [PropertyListValue] = text.runs.map {
            ["location": .integer($0.location), "length": .integer($0.length), "attributes": .dictionary($0.attributes.entries)]
        }
        return ["string": .string(text.text), "runs": .array(runs)]
    }
}
