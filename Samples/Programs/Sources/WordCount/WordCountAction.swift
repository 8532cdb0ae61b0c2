// The WordCount extension: an Action that replaces the text it is given with its counts.
import AppexKit
import Foundation
import TextToolsKit

/// Counts the words, characters and lines of each item's text: its content text, or else its
/// text attachments; returns one item per item, whose content text and text attachment are the
/// counts.
class WordCountAction: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        Task {
            do {
                var returned: [NSExtensionItem] = []
                for item in context.inputItems as! [NSExtensionItem] {
                    let statistics = TextStatistics(try await WordCountAction.text(of: item))
                    let result = NSExtensionItem()
                    result.attributedContentText = NSAttributedString(string: statistics.summary)
                    result.attachments = [NSItemProvider(object: statistics.summary)]
                    result.userInfo?["words"] = statistics.words
                    result.userInfo?["characters"] = statistics.characters
                    result.userInfo?["lines"] = statistics.lines
                    returned.append(result)
                }
                await context.completeRequest(returningItems: returned)
            } catch {
                context.cancelRequest(withError: error)
            }
        }
    }

    /// The item's content text; without one, its text attachments, one after another.
    private static func text(of item: NSExtensionItem) async throws -> String {
        if let text = item.attributedContentText?.string, !text.isEmpty { return text }
        var parts: [String] = []
        for provider in item.attachments ?? [] where provider.hasItemConformingToTypeIdentifier(UTType.plainText.identifier) {
            let data = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier)
            parts.append(String(decoding: data, as: UTF8.self))
        }
        return parts.joined(separator: "\n")
    }
}
