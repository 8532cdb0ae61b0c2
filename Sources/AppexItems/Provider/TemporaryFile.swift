import AppexSystem
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
    ///
    /// A symbolic link is followed: the copy holds what it points to. A file that came
    /// from another process arrives as a link to its descriptor (`/proc/self/fd/N`), and is
    /// copied from the descriptor, inside the kernel (``DescriptorLink``).
    static func copying(_ source: URL, in base: URL) throws -> TemporaryFile {
        try make(in: base) { directory in
            let url = directory.appendingPathComponent(source.lastPathComponent)
            if let descriptor = DescriptorLink.descriptor(behind: source) {
                defer { descriptor.close() }
                try descriptor.copyContents(toNewFileAt: url.path)
            } else if (try? FileManager.default.destinationOfSymbolicLink(atPath: source.path)) != nil {
                try copyContents(of: source, to: url)
            } else {
                try FileManager.default.copyItem(at: source, to: url)
            }
            return url
        }
    }

    /// Copies the bytes `source` leads to, in chunks, into a new file at `destination`.
    private static func copyContents(of source: URL, to destination: URL) throws {
        let reader = try FileHandle(forReadingFrom: source)
        defer { try? reader.close() }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
        }
        let writer = try FileHandle(forWritingTo: destination)
        defer { try? writer.close() }
        while let chunk = try reader.read(upToCount: 4 << 20), !chunk.isEmpty {
            try writer.write(contentsOf: chunk)
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
