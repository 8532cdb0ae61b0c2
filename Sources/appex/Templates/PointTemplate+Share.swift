import AppexCore

extension PointTemplate {
    /// A Share extension: Xcode's `ShareViewController`, a compose sheet whose post here
    /// hands back what was posted.
    static let share = PointTemplate(
        name: "share", point: .share, targetSuffix: "Share", principalClass: "ShareViewController",
        testModules: ["AppexShare"],
        attributes: ["NSExtensionActivationRule": .dictionary([
            "NSExtensionActivationSupportsText": .boolean(true), "NSExtensionActivationSupportsWebURLWithMaxCount": .integer(1),
        ])],
        sharedKeys: ["posts"],
        source: { names in
            let remember = names.group.map { group in
                """

                        // Shared with the containing app, which lists the posts.
                        let shared = UserDefaults(suiteName: "\(group)")
                        shared?.set((shared?.stringArray(forKey: "posts") ?? []) + [contentText], forKey: "posts")
                """
            } ?? ""
            return """
                import AppexKit
                import Foundation
                import Social

                class ShareViewController: SLComposeServiceViewController {

                    override func isContentValid() -> Bool {
                        // Do validation of contentText and/or NSExtensionContext attachments here.
                        return !contentText.isEmpty
                    }

                    override func didSelectPost() {
                        // This is called after the user selects Post. Do the upload of contentText and/or NSExtensionContext attachments.\(remember)
                        let posted = NSExtensionItem()
                        posted.attributedContentText = NSAttributedString(string: "Posted: \\(contentText!)")

                        // Inform the host that we're done, so it un-blocks its UI.
                        self.extensionContext!.completeRequest(returningItems: [posted], completionHandler: nil)
                    }

                    override func configurationItems() -> [Any]! {
                        // To add configuration options via table cells at the bottom of the sheet, return an array of SLComposeSheetConfigurationItem here.
                        return []
                    }
                }

                """
        },
        testBody: { names in
            let group = names.group.map { group in
                """

                    #expect(try host.groupDefaults("\(group)").stringArray(forKey: "posts") == ["Lunch at noon"])
                """
            } ?? ""
            return """
                    let session = try await ComposeSession.begin(try await host.extension(identifier), items: [.text("Lunch at noon")])
                    let sheet = try #require(await session.sheet(within: .seconds(30)))
                    #expect(sheet.contentText == "Lunch at noon" && sheet.isContentValid)
                    try session.send(.post)
                    #expect(try await session.outcome().returnedText() == ["Posted: Lunch at noon"])\(group)
                """
        },
        runCommand: { names in "appex share --text 'Lunch at noon' --to \(names.extensionIdentifier)" }
    )
}
