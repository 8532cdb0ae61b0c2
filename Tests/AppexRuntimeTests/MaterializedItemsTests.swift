import AppexCore
import AppexItems
import AppexSession
import AppexWire
import Foundation
import Testing

/// Returned items without attachments are described at once; any attachment means loading.
@Suite struct MaterializedItemsTests {
    @Test func itemsWithoutAttachmentsNeedNoLoading() throws {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: "DONE")
        item.userInfo?["count"] = 3
        let wire = try #require(MaterializedItems.wireItemsWithoutLoading([item, NSExtensionItem()]))
        #expect(wire.count == 2)
        #expect(wire[0].attributedContentText?.text == "DONE")
        #expect(wire[0].userInfo["count"] == .integer(3))
        #expect(wire[0].attachments.isEmpty && wire[1].attachments.isEmpty)
    }

    @Test func anyAttachmentMeansLoading() {
        let plain = NSExtensionItem()
        let attached = NSExtensionItem()
        attached.attachments = [NSItemProvider(object: "x")]
        #expect(MaterializedItems.wireItemsWithoutLoading([plain, attached]) == nil)
    }
}
