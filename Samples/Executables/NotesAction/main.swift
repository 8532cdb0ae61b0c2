// The NotesAction extension: an Action that returns the text it is given in upper case.
import AppexKit
import Foundation

/// Upper-cases the text of every item, from its content text and its text attachments.
final class UppercaseAction: NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        Task {
            var returned: [NSExtensionItem] = []
            for item in context.inputItems {
                let result = NSExtensionItem()
                result.attributedContentText = item.attributedContentText.map { NSAttributedString(string: $0.string.uppercased()) }
                var attachments: [NSItemProvider] = []
                for provider in item.attachments ?? [] where provider.hasItemConformingToTypeIdentifier(UTType.plainText.identifier) {
                    do {
                        let text = try await provider.loadItem(forTypeIdentifier: UTType.plainText.identifier)
                        attachments.append(NSItemProvider(object: Self.text(of: text).uppercased()))
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

    private static func text(of item: any NSItemProviderValue) -> String {
        switch item {
        case let text as String: text
        case let data as Data: String(decoding: data, as: UTF8.self)
        default: "\(item)"
        }
    }
}

NSExtensionMain()
