// Notes: a small note-taking app, and the containing app of the Notes extensions.
// It keeps its notes, one per line, in its own data container, and reads the notes its
// Share extension filed in the Notes app group. Launched to open notes://note/NAME (the
// Latest Note widget's links), it shows that note, and remembers it as the one last opened.
// `notes clear` deletes the shared notes and hides the widget until a note is shared again.
import AppexApplication
import AppexCore
import AppexGroups
import AppexToday
import Foundation

let container = AppexHome.current.container(for: "com.example.notes")
let file = container.appendingPathComponent("notes.txt")
let openedFile = container.appendingPathComponent("opened.txt")
let group = "group.com.example.notes"
let widget = "com.example.notes.widget"

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

/// Opens `url`, notes://note/NAME: prints the shared note NAME, and records it as the note
/// last opened, with the URL and who asked, in the app's container.
func open(_ url: URL, from source: String?) throws {
    guard url.scheme == "notes", url.host == "note", let name = url.pathComponents.dropFirst().first,
          let groupContainer = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)
    else {
        FileHandle.standardError.write(Data("notes: can't open \(url.absoluteString): it names no shared note\n".utf8))
        exit(1)
    }
    let note = groupContainer.appendingPathComponent("Shared Notes/\(name).txt")
    var text: String?
    NSFileCoordinator().coordinate(readingItemAt: note, error: nil) { text = try? String(contentsOf: $0, encoding: .utf8) }
    guard let text else {
        FileHandle.standardError.write(Data("notes: \(url.absoluteString) names \(name), which isn't among the shared notes\n".utf8))
        exit(1)
    }
    print("Opened \(name), from \(source ?? "the user"):\n\(text)")
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    try "\(name)\t\(url.absoluteString)\t\(source ?? "")\t\(text.replacingOccurrences(of: "\n", with: " · "))\n"
        .write(to: openedFile, atomically: true, encoding: .utf8)
}

/// Deletes the notes shared with "Add to Notes", each in a coordinated write, and tells the
/// Today view that the Latest Note widget has nothing to show until a note is shared again.
func clearSharedNotes() {
    guard let groupContainer = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group),
          let defaults = GroupDefaults(suiteName: group)
    else {
        FileHandle.standardError.write(Data("notes: \(group) can't be opened: run the installed Notes app\n".utf8))
        exit(1)
    }
    let folder = groupContainer.appendingPathComponent("Shared Notes", isDirectory: true)
    let files = ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []).filter { $0.pathExtension == "txt" }
    for note in files {
        NSFileCoordinator().coordinate(writingItemAt: note, options: .forDeleting, error: nil) { try? FileManager.default.removeItem(at: $0) }
    }
    defaults.removeObject(forKey: "lastSharedNote")
    defaults.set(0, forKey: "sharedNoteCount")
    do {
        try NCWidgetController.widgetController().updateHasContent(false, forWidgetWithBundleIdentifier: widget)
    } catch {
        FileHandle.standardError.write(Data("notes: deleted \(files.count) shared notes, but the widget stays shown: \(error)\n".utf8))
        exit(1)
    }
    print("Deleted \(files.count) shared notes. The Latest Note widget is hidden until a note is shared again.")
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let url = UIApplication.shared.launchOptions[.url] as? URL {
    try open(url, from: UIApplication.shared.launchOptions[.sourceApplication] as? String)
    exit(0)
}
switch arguments.first {
case "opened":
    // The note last opened through a link: NAME, URL, who asked, and its text, tab-separated.
    print((try? String(contentsOf: openedFile, encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? "No note opened yet.")
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
case "clear":
    clearSharedNotes()
default:
    FileHandle.standardError.write(Data("usage: notes [list | add TEXT | opened | clear]\n".utf8))
    exit(2)
}
