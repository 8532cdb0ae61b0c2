// The Latest Note widget: the Notes app's Today widget. It shows the note shared last with
// "Add to Notes", read from the Notes app group, and the four before it when expanded. Each
// note links to notes://note/NAME, which the Notes app opens.
import AppexKit
import Foundation
import NotificationCenter

class TodayViewController: WidgetViewController, NCWidgetProviding {
    /// How many notes expanded mode shows.
    static let expandedCount = 5
    private var notes: [SharedNote] = []
    private var expanded = false

    override func viewDidLoad() {
        super.viewDidLoad()
        extensionContext?.widgetLargestAvailableDisplayMode = .expanded
        notes = SharedNote.newestFirst() ?? []
        render()
    }

    /// New data is news to the Today view's snapshot, which outlives this process: what the
    /// widget last reported is kept in the group's defaults, and compared.
    func widgetPerformUpdate(completionHandler: @escaping (NCUpdateResult) -> Void) {
        guard let found = SharedNote.newestFirst(), let defaults = UserDefaults(suiteName: SharedNote.group) else {
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
