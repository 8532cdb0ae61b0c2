import Foundation

/// A file an ``NSItemProvider`` made for a consumer, alone in a private directory that
/// ``remove()`` deletes with it. Every path that makes one removes it.
struct TemporaryFile: Sendable {
    /// The file.
    let url: URL
    /// The private directory that holds it.
    let directory: URL

    /// Writes `data` to a new file called `name`.
    static func writing(_ data: Data, named name: String, in base: URL) throws -> TemporaryFile {
        try make(in: base) { directory in
            let url = directory.appendingPathComponent(name, isDirectory: false)
            try data.write(to: url)
            return url
        }
    }

    /// Copies the file or folder at `source` to a new file of the same name.
    static func copying(_ source: URL, in base: URL) throws -> TemporaryFile {
        try make(in: base) { directory in
            let url = directory.appendingPathComponent(source.lastPathComponent)
            try FileManager.default.copyItem(at: source, to: url)
            return url
        }
    }

    private static func make(in base: URL, _ fill: (URL) throws -> URL) throws -> TemporaryFile {
        let directory = base.appendingPathComponent("appex-item-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            return TemporaryFile(url: try fill(directory), directory: directory)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Deletes the file and its directory.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
