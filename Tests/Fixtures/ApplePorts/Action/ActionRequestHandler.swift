import AppexKit
import Foundation
import MobileCoreServices

// An Action without a user interface, in the shape of Xcode's template: it takes the page's
// JavaScript preprocessing results and hands a new background colour back to the page.
class ActionRequestHandler: NSObject, NSExtensionRequestHandling {
    var extensionContext: NSExtensionContext?

    func beginRequest(with context: NSExtensionContext) {
        self.extensionContext = context

        var found = false
        for item in context.inputItems as! [NSExtensionItem] {
            for provider in item.attachments ?? [] where provider.hasItemConformingToTypeIdentifier(kUTTypePropertyList as String) {
                found = true
                provider.loadItem(forTypeIdentifier: kUTTypePropertyList as String, options: nil) { item, error in
                    guard let dictionary = item as? [String: Any],
                          let results = dictionary[NSExtensionJavaScriptPreprocessingResultsKey] as? [String: Any] else {
                        context.cancelRequest(withError: error ?? CocoaError(.coderReadCorrupt))
                        return
                    }
                    let current = results["currentBackgroundColor"] as? String
                    OperationQueue.main.addOperation {
                        ActionRequestHandler.finish(context, replacing: current)
                    }
                }
            }
        }
        if !found {
            context.completeRequest(returningItems: [], completionHandler: nil)
        }
    }

    static func finish(_ context: NSExtensionContext, replacing current: String?) {
        // The colour before last is kept in the settings the app shares with its extensions.
        let shared = UserDefaults(suiteName: "group.com.example.faults")
        let previous = shared?.string(forKey: "lastColour") ?? "none"
        let colour = current == "red" ? "blue" : "red"
        shared?.set(colour, forKey: "lastColour")
        let argument: NSDictionary = [NSExtensionJavaScriptFinalizeArgumentKey: ["newBackgroundColor": colour, "previousColour": previous]]
        let item = NSExtensionItem()
        item.attachments = [NSItemProvider(item: argument, typeIdentifier: kUTTypePropertyList as String)]
        context.completeRequest(returningItems: [item], completionHandler: nil)
    }
}
