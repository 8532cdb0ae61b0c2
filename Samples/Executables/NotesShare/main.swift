// The NotesShare extension: files the text and links it is given as notes in the Notes
// app group, where the Notes app reads them.
import AppexKit
import Foundation

/// Saves each item's text, text attachments and links as a note, one file per item, in
/// `Shared Notes/` of the group container, each a coordinated write; then counts them and
/// names the last in the group's shared defaults, which the app reads with `notes list`.
final class ShareHandler: NSExtensionRequestHandling {
    static let group = "group.com.example.notes"

    func beginRequest(with context: NSExtensionContext) {
        Task {
            do {
                guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: Self.group),
                      let defaults = GroupDefaults(suiteName: Self.group)
                else {
                    throw CocoaError(.fileWriteNoPermission, userInfo: [NSLocalizedDescriptionKey: "NotesShare has no container for \(Self.group)"])
                }
                let folder = container.appendingPathComponent("Shared Notes", isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                var saved: [String] = []
                for item in context.inputItems {
                    let note = try await Self.note(for: item)
                    guard !note.isEmpty else { continue }
                    let file = folder.appendingPathComponent("\(context.requestIdentifier.uuidString.prefix(8))-\(saved.count + 1).txt")
                    try Self.write(note, to: file)
                    saved.append(file.path)
                    defaults.set(note.split(separator: "\n").first.map(String.init), forKey: "lastSharedNote")
                }
                let total = defaults.update(forKey: "sharedNoteCount") { (($0 as? Int) ?? 0) + saved.count } as? Int ?? saved.count
                let receipt = NSExtensionItem()
                receipt.attributedContentText = NSAttributedString(string: "Saved \(saved.count) note(s) to \(Self.group); \(total) shared so far")
                receipt.userInfo?["savedFiles"] = .array(saved.map(PropertyListValue.string))
                await context.completeRequest(returningItems: [receipt])
            } catch {
                context.cancelRequest(withError: error)
            }
        }
    }

    /// Writes `note` to `file` in a coordinated write, replacing it whole, so the app never
    /// reads half of it.
    private static func write(_ note: String, to file: URL) throws {
        var coordinationError: NSError?
        var writeError: (any Error)?
        NSFileCoordinator().coordinate(writingItemAt: file, options: .forReplacing, error: &coordinationError) { url in
            do { try Data(note.utf8).write(to: url, options: .atomic) } catch { writeError = error }
        }
        if let error = coordinationError ?? writeError { throw error }
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
