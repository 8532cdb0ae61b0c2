import AppexKit
import Foundation

/// One note "Add to Notes" filed in the group: `Shared Notes/FOLDER-ID.txt`.
struct SharedNote: Equatable {
    var name: String
    var folder: String
    var text: String
    var modified: Date

    static let group = "group.com.example.notes"

    /// The group's notes, the newest first; nil if the group's container can't be had.
    static func newestFirst() -> [SharedNote]? {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else { return nil }
        let folder = container.appendingPathComponent("Shared Notes", isDirectory: true)
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        var notes: [SharedNote] = []
        for file in files where file.pathExtension == "txt" {
            let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantPast
            var text = ""
            NSFileCoordinator().coordinate(readingItemAt: file, error: nil) { url in
                text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            }
            let name = file.deletingPathExtension().lastPathComponent
            notes.append(SharedNote(name: name, folder: name.split(separator: "-").first.map(String.init) ?? "Inbox", text: text, modified: modified))
        }
        return notes.sorted { ($0.modified, $0.name) > ($1.modified, $1.name) }
    }
}
