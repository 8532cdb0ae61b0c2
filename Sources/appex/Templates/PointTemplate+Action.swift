import AppexCore

extension PointTemplate {
    /// An Action without a user interface: Xcode's `ActionRequestHandler`, which here turns
    /// the text it is given into capitals and hands it back.
    static let action = PointTemplate(
        name: "action", point: .action, targetSuffix: "Action", principalClass: "ActionRequestHandler",
        testModules: [],
        attributes: ["NSExtensionActivationRule": .dictionary(["NSExtensionActivationSupportsText": .boolean(true)])],
        sharedKeys: ["lastResult"],
        source: { names in
            let remember = names.group.map { group in
                """

                        // Shared with the containing app, which shows it.
                        UserDefaults(suiteName: "\(group)")?.set(text, forKey: "lastResult")
                """
            } ?? ""
            return """
                import AppexKit
                import Foundation
                import MobileCoreServices

                class ActionRequestHandler: NSObject, NSExtensionRequestHandling {
                    var extensionContext: NSExtensionContext?

                    func beginRequest(with context: NSExtensionContext) {
                        // Do not call super in an Action extension with no user interface.
                        self.extensionContext = context

                        for item in context.inputItems as! [NSExtensionItem] {
                            for provider in item.attachments ?? [] where provider.canLoadObject(ofClass: String.self) {
                                _ = provider.loadObject(ofClass: String.self) { text, error in
                                    OperationQueue.main.addOperation {
                                        self.done(with: text, error: error)
                                    }
                                }
                                return
                            }
                        }
                        context.cancelRequest(withError: CocoaError(.featureUnsupported))
                    }

                    func done(with text: String?, error: Error?) {
                        guard let text = text?.uppercased() else {
                            extensionContext?.cancelRequest(withError: error ?? CocoaError(.fileReadCorruptFile))
                            return
                        }\(remember)
                        let item = NSExtensionItem()
                        item.attachments = [NSItemProvider(item: text as NSString, typeIdentifier: kUTTypePlainText as String)]
                        extensionContext?.completeRequest(returningItems: [item], completionHandler: nil)
                        extensionContext = nil
                    }
                }

                """
        },
        testBody: { names in
            let group = names.group.map { group in
                """

                    #expect(try host.groupDefaults("\(group)").string(forKey: "lastResult") == "HELLO, WORLD")
                """
            } ?? ""
            return """
                    let outcome = try await host.request(identifier, items: [.text("hello, world")])
                    #expect(try await outcome.returnedText() == ["HELLO, WORLD"], "\\(outcome)")\(group)
                """
        },
        runCommand: { names in "appex run \(names.extensionIdentifier) --text hello" }
    )
}
