// Notes: a small note-taking app, and the containing app of the Notes extensions.
// It keeps its notes, one per line, in its own data container.
import AppexCore
import Foundation

let container = AppexHome.current.container(for: "com.example.notes")
let file = container.appendingPathComponent("notes.txt")

func notes() -> [String] {
    ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
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
default:
    FileHandle.standardError.write(Data("usage: notes [list | add TEXT]\n".utf8))
    exit(2)
}
