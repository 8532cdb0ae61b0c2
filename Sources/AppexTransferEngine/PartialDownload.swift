import AppexRegistry
import AppexSystem
import Foundation
import Glibc
import NIOCore

/// A download's `.partial` file beside its destination: what has arrived so far, kept
/// across attempts and restarts of the engine's process, and moved to the destination once complete.
///
/// The destination lies in an app group's container, which extensions write, below a folder
/// they can't (a home's `Groups/`, the engine's ``TransferEngine/downloadsFolder``). So every
/// path below that folder is resolved through ``ConfinedFolder``: a link an extension plants
/// at the file or at a folder on the way is refused, never followed out of the container.
struct PartialDownload {
    let destination: URL
    /// The trusted folder the destination lies below.
    private let root: URL
    /// The destination's folder, relative to `root`; nil if it doesn't lie below it.
    private let folder: String?
    /// The destination's name.
    private let name: String

    /// The download `task`'s file below `root`; nil if the task is no download.
    init?(_ task: TransferTask, below root: URL) {
        guard let destination = task.destination else { return nil }
        self.destination = destination
        self.root = root
        folder = ConfinedFolder.relativePath(of: destination.deletingLastPathComponent().path, below: root.path)
        name = destination.lastPathComponent
    }

    var partialName: String { name + ".partial" }

    /// Opens the destination's folder, made where missing. A destination that doesn't lie
    /// below the root, or a folder on the way that is a link, can't be written.
    func openFolder() throws(TransferFailure) -> ConfinedFolder {
        do {
            guard let folder else { throw SystemError("open", subject: destination.path, errno: EXDEV) }
            // The root is trusted, and made like any of the engine's folders.
            try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            return try ConfinedFolder(root.path).folder(folder, creating: true)
        } catch {
            throw TransferFailure(.cannotCreateFile, "the download's folder can't be opened without leaving \(root.path): \(error)")
        }
    }

    /// The bytes kept from earlier attempts: the file's size, which is what reached the disk
    /// whatever the registry last recorded.
    func keptBytes(in folder: ConfinedFolder) -> Int64 {
        folder.sizeOfFile(partialName) ?? 0
    }

    /// The bytes kept, the folder opened to count them; 0 if it can't be.
    func keptBytes() -> Int64 {
        guard let folder = try? openFolder() else { return 0 }
        defer { folder.close() }
        return keptBytes(in: folder)
    }

    /// Opens the file to write: from its end to resume, or emptied to start over.
    func open(in folder: ConfinedFolder, resuming: Bool) throws(TransferFailure) -> AppexSystem.FileDescriptor {
        do {
            return try folder.openFile(partialName, flags: O_WRONLY | O_CREAT | (resuming ? O_APPEND : O_TRUNC))
        } catch {
            throw TransferFailure(.cannotCreateFile, "the download's file can't be written: \(error)")
        }
    }

    /// Writes all of `buffer` to `file`.
    func write(_ buffer: ByteBuffer, to file: AppexSystem.FileDescriptor) throws {
        try buffer.withUnsafeReadableBytes { try file.write($0) }
    }

    /// Makes the file durable and gives it its destination's name.
    func complete(_ file: AppexSystem.FileDescriptor, in folder: ConfinedFolder) throws(SystemError) {
        guard fsync(file.rawValue) == 0 else { throw SystemError("fsync", subject: destination.path + ".partial") }
        file.close()
        try folder.rename(partialName, to: name)
    }

    /// Forgets what has arrived: the next attempt starts over.
    func discard() {
        ConfinedFolder.removeFile(atPath: destination.path + ".partial", below: root.path)
    }
}
