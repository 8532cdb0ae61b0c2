// Notes: a small note-taking app, and the containing app of the Notes extensions.
// It keeps its notes, one per line, in its own data container, and reads the notes its
// Share extension filed in the Notes app group.
import AppexCore
import AppexGroups
import Foundation

let container = AppexHome.current.container(for: "com.example.notes")
let file = container.appendingPathComponent("notes.txt")
let group = "group.com.example.notes"

func notes() -> [String] {
    ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
}

/// The notes the Share extension filed in the group container, oldest first, each read in
/// a coordinated read; and what the group's shared defaults say of them. Nil when this
/// program is not the installed Notes app, which alone appexd gives the group to.
func sharedNotes() -> (notes: [String], count: Int, last: String?)? {
    guard let groupContainer = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group),
          let defaults = GroupDefaults(suiteName: group)
    else { return nil }
    let folder = groupContainer.appendingPathComponent("Shared Notes", isDirectory: true)
    func modified(_ url: URL) -> Date {
        ((try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate) ?? .distantPast
    }
    let files = ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])) ?? [])
        .filter { $0.pathExtension == "txt" }
        .sorted { modified($0) < modified($1) }
    var notes: [String] = []
    for note in files {
        NSFileCoordinator().coordinate(readingItemAt: note, error: nil) { url in
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { return }
            // "Add to Notes" names each file after the folder the user picked: Ideas-1A2B3C4D.txt.
            let folder = note.lastPathComponent.split(separator: "-").first.map { "[\($0)] " } ?? ""
            notes.append(folder + text.replacingOccurrences(of: "\n", with: " · "))
        }
    }
    return (notes, defaults.integer(forKey: "sharedNoteCount"), defaults.string(forKey: "lastSharedNote"))
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "add" where arguments.count > 1:
    let note = arguments.dropFirst().joined(separator: " ").replacingOccurrences(of: "\n", with: " ")
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    try (notes() + [note]).joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
    print("Added note \(notes().count).")
case "list", nil:
    let all = notes()
    if all.isEmpty { print("No notes yet. Add one with: notes add TEXT") }
    for (index, note) in all.enumerated() { print("\(index + 1). \(note)") }
    if let shared = sharedNotes() {
        print("Shared with \"Add to Notes\" (\(group)): \(shared.count) so far, the last \"\(shared.last ?? "—")\"")
        for note in shared.notes { print("  - \(note)") }
    } else {
        print("(The notes shared with \"Add to Notes\" are in \(group), which only the installed Notes app may open.)")
    }
default:
    FileHandle.standardError.write(Data("usage: notes [list | add TEXT]\n".utf8))
    exit(2)
}
