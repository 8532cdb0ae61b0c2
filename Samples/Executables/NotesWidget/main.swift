// The Latest Note widget: the Notes app's Today widget. It shows the note shared last with
// "Add to Notes", read from the Notes app group, and the four before it when expanded. Each
// note links to notes://note/NAME, which the Notes app opens.
import AppexGroups
import AppexKit
import AppexToday
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

class TodayViewController: WidgetViewController, NCWidgetProviding {
    /// How many notes expanded mode shows.
    static let expandedCount = 5
    private var notes: [SharedNote] = []
    private var expanded = false

    override func viewDidLoad() {
        extensionContext?.widgetLargestAvailableDisplayMode = .expanded
        notes = SharedNote.newestFirst() ?? []
        render()
    }

    /// New data is news to the Today view's snapshot, which outlives this process: what the
    /// widget last reported is kept in the group's defaults, and compared.
    func widgetPerformUpdate(completionHandler: @escaping (NCUpdateResult) -> Void) {
        guard let found = SharedNote.newestFirst(), let defaults = GroupDefaults(suiteName: SharedNote.group) else {
            return completionHandler(.failed)
        }
        if found != notes {
            notes = found
            render()
        }
        let reported = "\(found.count) \(found.first?.name ?? "")"
        guard defaults.string(forKey: Self.reportedKey) != reported else { return completionHandler(.noData) }
        defaults.set(reported, forKey: Self.reportedKey)
        completionHandler(.newData)
    }

    /// The group default that holds what the last update reported: the count and the newest note.
    static let reportedKey = "widget.reported"

    func widgetActiveDisplayModeDidChange(_ activeDisplayMode: NCWidgetDisplayMode, withMaximumSize maxSize: CGSize) {
        expanded = activeDisplayMode == .expanded
        render()
    }

    private func render() {
        let shown = Array(notes.prefix(expanded ? Self.expandedCount : 1))
        var rows: [WidgetView] = [.hstack([.image(.note, label: "Note"), .text("Latest Note", style: .headline), .spacer,
                                           .text("\(notes.count) shared", style: .caption)])]
        if shown.isEmpty {
            rows.append(.text("Nothing shared yet. Share a text to \"Add to Notes\".", style: .caption, color: .secondary))
        }
        for note in shown {
            let firstLine = note.text.split(separator: "\n").first.map(String.init) ?? ""
            rows.append(.link("notes://note/\(note.name)", .hstack([.text(note.folder, style: .caption, color: .accent), .text(firstLine)])))
        }
        view = .vstack(rows)
        // One row of text is 22 points: a heading, then each note.
        preferredContentSize = CGSize(width: 0, height: Double(22 * (1 + max(shown.count, 1)) + 22))
    }
}

NSExtensionMain()
