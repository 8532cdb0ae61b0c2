// The NotesShare extension: files the text and links it is given as notes in its container.
import AppexKit
import Foundation

/// Saves each item's text, text attachments and links as a note, one file per item, in
/// `Notes/` under the extension's home (its container). App groups will let the Notes app
/// read them from a shared container.
final class ShareHandler: NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        Task {
            do {
                let folder = FileManager.default.extensionContainerURL.appendingPathComponent("Notes", isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                var saved: [String] = []
                for item in context.inputItems {
                    let note = try await Self.note(for: item)
                    guard !note.isEmpty else { continue }
                    let file = folder.appendingPathComponent("\(context.requestIdentifier.uuidString.prefix(8))-\(saved.count + 1).txt")
                    try Data(note.utf8).write(to: file)
                    saved.append(file.path)
                }
                let receipt = NSExtensionItem()
                receipt.attributedContentText = NSAttributedString(string: "Saved \(saved.count) note(s)")
                receipt.userInfo?["savedFiles"] = .array(saved.map(PropertyListValue.string))
                await context.completeRequest(returningItems: [receipt])
            } catch {
                context.cancelRequest(withError: error)
            }
        }
    }

    /// The item's content text, then each text attachment and link, one per line.
    private static func note(for item: NSExtensionItem) async throws -> String {
        var lines: [String] = []
        if let text = item.attributedContentText?.string, !text.isEmpty { lines.append(text) }
        for provider in item.attachments ?? [] {
            if provider.hasItemConformingToTypeIdentifier(UTType.url.identifier) {
                if let url = try await provider.loadItem(forTypeIdentifier: UTType.url.identifier) as? URL { lines.append(url.absoluteString) }
            } else if provider.hasItemConformingToTypeIdentifier(UTType.plainText.identifier) {
                let data = try await provider.loadDataRepresentation(forTypeIdentifier: UTType.plainText.identifier)
                lines.append(String(decoding: data, as: UTF8.self))
            }
        }
        return lines.joined(separator: "\n")
    }
}

NSExtensionMain()
