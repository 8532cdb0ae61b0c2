// The NotesAction extension: an Action that returns the text it is given in upper case.
import AppexKit
import Foundation

/// Upper-cases the text of every item, from its content text and its text attachments.
class UppercaseAction: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        Task {
            var returned: [NSExtensionItem] = []
            for item in context.inputItems as! [NSExtensionItem] {
                let result = NSExtensionItem()
                result.attributedContentText = item.attributedContentText.map { NSAttributedString(string: $0.string.uppercased()) }
                var attachments: [NSItemProvider] = []
                for provider in item.attachments ?? [] where provider.hasItemConformingToTypeIdentifier(UTType.plainText.identifier) {
                    do {
                        // As data: a text file's item is its URL, and its content is what to change.
                        let data = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier)
                        attachments.append(NSItemProvider(object: String(decoding: data, as: UTF8.self).uppercased()))
                    } catch {
                        context.cancelRequest(withError: error)
                        return
                    }
                }
                result.attachments = attachments
                returned.append(result)
            }
            await context.completeRequest(returningItems: returned)
        }
    }
}
