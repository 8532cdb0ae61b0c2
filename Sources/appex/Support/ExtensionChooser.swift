import AppexCore
import AppexHost
import AppexRegistry
import AppexWire
import Foundation

/// Which of the extensions that accept the content a terminal host sends to: the one `--to`
/// names, or the one the user picks from a list; never a prompt without a terminal.
///
/// The list shows the extensions this user picked recently first, marked, the most recent
/// highlighted, then the others in the user's order. Every pick, from the list or `--to`, is
/// remembered in the registry.
struct ExtensionChooser {
    /// The command, for messages: "action".
    var command: String
    /// The points whose extensions it sends to.
    var points: [ExtensionPoint]
    /// What is being sent, for the list's title: "a file and a text".
    var content: String
    /// Where picks are remembered: this home's registry; nil to remember nothing.
    var registry: Registry?
    /// How many recent picks go first.
    static let recentCount = 3

    /// The extension to use among `candidates`, in the user's order. Throws a failure that
    /// says what to pass when there is nothing to choose, `--to` names none of them, or the
    /// user must choose and can't be asked.
    func choose(from candidates: [NSExtension], to wanted: String?, terminal: Terminal?) throws -> NSExtension {
        if let wanted {
            guard let chosen = candidates.first(where: { $0.identifier.lowercased() == wanted.lowercased() }) else {
                throw refusal(of: wanted, candidates: candidates)
            }
            remember(chosen)
            return chosen
        }
        guard !candidates.isEmpty else { throw nothingAccepts() }
        guard let terminal else {
            throw CommandFailure(status: CommandFailure.trouble, "which extension? Without a terminal `appex \(command)` does not ask: pass --to ID, one of:\n" + Self.list(candidates))
        }
        let recent = (try? registry?.recentlyPicked(among: candidates.map(\.identifier), limit: Self.recentCount)) ?? []
        let ordered = recent.compactMap { id in candidates.first { $0.identifier == id } } + candidates.filter { !recent.contains($0.identifier) }
        var list = ChoiceList(title: "Send \(content) to:", choices: ordered.map {
            ChoiceList.Choice(label: $0.summary.displayName, detail: $0.identifier, note: recent.contains($0.identifier) ? "recent" : nil)
        })
        terminal.enterRaw()
        let picked = list.run(on: terminal)
        terminal.restore()
        guard let picked else { throw CommandFailure(status: CommandFailure.no, "cancelled; nothing was sent") }
        terminal.keepDrawing()
        remember(ordered[picked])
        return ordered[picked]
    }

    /// Remembers the pick; a registry that can't be written changes nothing else.
    private func remember(_ chosen: NSExtension) {
        try? registry?.recordPick(of: chosen.identifier)
    }

    static func list(_ candidates: [NSExtension]) -> String {
        candidates.map { "  \($0.identifier)\t\($0.summary.displayName)" }.joined(separator: "\n")
    }
}
