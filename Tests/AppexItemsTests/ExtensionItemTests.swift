@testable import AppexItems
import AppexCore
import Foundation
import Testing

@Suite struct ExtensionItemTests {
    @Test func aNewItemIsEmpty() {
        let item = NSExtensionItem()
        #expect(item.attributedTitle == nil)
        #expect(item.attributedContentText == nil)
        #expect(item.attachments == nil)
        #expect(item.userInfo == nil)
        item.attributedTitle = nil
        #expect(item.userInfo == nil)
    }

    @Test func theTitleAndContentTextLiveInUserInfo() {
        let item = NSExtensionItem()
        item.attributedTitle = NSAttributedString(string: "Trip")
        item.attributedContentText = NSAttributedString(string: "Photos from the lake")
        #expect((item.userInfo?[NSExtensionItemAttributedTitleKey] as? NSAttributedString)?.string == "Trip")
        #expect((item.userInfo?[NSExtensionItemAttributedContentTextKey] as? NSAttributedString)?.string == "Photos from the lake")
        item.attributedTitle = nil
        #expect(item.userInfo?[NSExtensionItemAttributedTitleKey] == nil)
        #expect(item.attributedContentText?.string == "Photos from the lake")
    }

    @Test func settingUserInfoReplacesTheTitleAndContentText() {
        let item = NSExtensionItem()
        item.attributedTitle = NSAttributedString(string: "Old title")
        item.attributedContentText = NSAttributedString(string: "Old text")
        item.userInfo = [NSExtensionItemAttributedTitleKey: NSAttributedString(string: "New title"), "com.example.rating": 5]
        #expect(item.attributedTitle?.string == "New title")
        #expect(item.attributedContentText == nil)
        #expect(item.userInfo?["com.example.rating"] as? Int == 5)
        item.userInfo = [NSExtensionItemAttributedContentTextKey: "Plain text"]
        #expect(item.attributedContentText?.string == "Plain text")
        #expect(item.attributedTitle == nil)
    }

    /// As on Apple's platforms, code reads the values with casts; what can't cross to another
    /// process is left out when it is set, not when the item is sent.
    @Test func userInfoHoldsFoundationValuesAndLeavesOutWhatCantCross() {
        let item = NSExtensionItem()
        item.userInfo = ["count": 3, "ratio": 0.25, "tags": ["a", "b"], "when": Date(timeIntervalSince1970: 0),
                         "object": Bookmark(), 7: "a number key"]
        #expect(item.userInfo?["count"] as? Int == 3)
        #expect(item.userInfo?["ratio"] as? Double == 0.25)
        #expect(item.userInfo?["tags"] as? [String] == ["a", "b"])
        #expect(item.userInfo?["when"] as? Date == Date(timeIntervalSince1970: 0))
        #expect(Set(item.userInfo?.keys.compactMap { $0.base as? String } ?? []) == ["count", "ratio", "tags", "when"])
        #expect(item.propertyListUserInfo?["count"] == 3)
    }

    @Test func attributesWithPropertyListValuesSurvive() throws {
        let text = NSMutableAttributedString(string: "héllo wörld")
        text.addAttribute(NSAttributedString.Key("com.example.weight"), value: 700, range: NSRange(location: 0, length: 5))
        text.addAttribute(NSAttributedString.Key("com.example.tag"), value: "greeting", range: NSRange(location: 2, length: 5))
        text.addAttribute(NSAttributedString.Key("com.example.view"), value: NSObject(), range: NSRange(location: 0, length: 11))
        let item = NSExtensionItem()
        item.attributedTitle = text
        let title = try #require(item.attributedTitle)
        #expect(title.string == "héllo wörld")
        var effective = NSRange()
        let first = title.attributes(at: 0, effectiveRange: &effective)
        #expect(first[NSAttributedString.Key("com.example.weight")] as? Int == 700)
        #expect(first[NSAttributedString.Key("com.example.view")] == nil)
        #expect(title.attributes(at: 6, effectiveRange: nil)[NSAttributedString.Key("com.example.tag")] as? String == "greeting")
        #expect(title.attributes(at: 8, effectiveRange: nil).isEmpty)
        // The stored form is a property list, so it can cross a process boundary.
        #expect(item.propertyListUserInfo?[NSExtensionItemAttributedTitleKey]?["string"] == "héllo wörld")
    }

    @Test func runsOutsideTheTextAreSkipped() throws {
        let item = NSExtensionItem()
        item.userInfo = [
            NSExtensionItemAttributedContentTextKey: [
                "string": "short",
                "runs": [
                    ["location": 2, "length": 99, "attributes": ["k": "bad"]],
                    ["location": -1, "length": 1, "attributes": ["k": "bad"]],
                    ["location": 0, "length": 5, "attributes": ["k": "good"]],
                ],
            ],
        ]
        let text = try #require(item.attributedContentText)
        #expect(text.string == "short")
        #expect(text.attributes(at: 3, effectiveRange: nil)[NSAttributedString.Key("k")] as? String == "good")
        item.userInfo = [NSExtensionItemAttributedTitleKey: 3]
        #expect(item.attributedTitle == nil)
    }

    @Test func attachmentsAreKeptApartFromUserInfo() {
        let item = NSExtensionItem()
        let provider = NSItemProvider(object: "text")
        item.attachments = [provider]
        item.userInfo = [:]
        #expect(item.attachments?.count == 1)
        #expect(item.attachments?.first === provider)
        #expect(item.userInfo?[NSExtensionItemAttachmentsKey] == nil)
        #expect(NSExtensionItemAttachmentsKey == "NSExtensionItemAttachmentsKey")
        #expect(NSExtensionItemAttributedTitleKey == "NSExtensionItemAttributedTitleKey")
        #expect(NSExtensionItemAttributedContentTextKey == "NSExtensionItemAttributedContentTextKey")
    }
}
