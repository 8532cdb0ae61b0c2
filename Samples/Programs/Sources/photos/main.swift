// Photos: a small photo library, and the containing app of the Photos extensions.
// It imports image files into its own data container and lists them.
import AppexCore
import Foundation

let library = AppexHome.current.container(for: "com.example.photos").appendingPathComponent("Library")
let arguments = Array(CommandLine.arguments.dropFirst())

switch arguments.first {
case "import" where arguments.count > 1:
    try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
    for path in arguments.dropFirst() {
        let source = URL(fileURLWithPath: path)
        guard let type = UTType(filenameExtension: source.pathExtension), type.conforms(to: .image) else {
            FileHandle.standardError.write(Data("photos: \(path) is not an image; skipped\n".utf8))
            continue
        }
        try FileManager.default.copyItem(at: source, to: library.appendingPathComponent(source.lastPathComponent))
        print("Imported \(source.lastPathComponent) (\(type.identifier)).")
    }
case "list", nil:
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: library.path)) ?? []).sorted()
    if names.isEmpty { print("The library is empty. Import images with: photos import FILE…") }
    for name in names { print(name) }
default:
    FileHandle.standardError.write(Data("usage: photos [list | import FILE…]\n".utf8))
    exit(2)
}
