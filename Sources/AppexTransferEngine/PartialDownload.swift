import AppexRegistry
import AppexSystem
import Foundation
import Glibc
import NIOCore

/// A download's `.partial` file beside its destination: what has arrived so far, kept
/// across attempts and restarts of the engine's process, and moved to the destination once complete.
struct PartialDownload {
    let partial: URL
    let destination: URL

    /// The download `task`'s file; nil if the task is no download.
    init?(_ task: TransferTask) {
        guard let destination = task.destination, let partial = task.partialFile else { return nil }
        self.destination = destination
        self.partial = partial
    }

    /// The bytes kept from earlier attempts: the file's size, which is what reached the disk
    /// whatever the registry last recorded.
    var keptBytes: Int64 {
        var status = stat()
        return stat(partial.path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Opens the file to write: from its end to resume, or emptied to start over. Creates the
    /// destination's directory if it isn't there.
    func open(resuming: Bool) throws -> AppexSystem.FileDescriptor {
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        return try AppexSystem.FileDescriptor.open(partial.path, flags: O_WRONLY | O_CREAT | (resuming ? O_APPEND : O_TRUNC), mode: 0o600)
    }

    /// Writes all of `buffer` to `file`.
    func write(_ buffer: ByteBuffer, to file: AppexSystem.FileDescriptor) throws {
        try buffer.withUnsafeReadableBytes { try file.write($0) }
    }

    /// Makes the file durable and gives it its destination's name.
    func complete(_ file: AppexSystem.FileDescriptor) throws(SystemError) {
        guard fsync(file.rawValue) == 0 else { throw SystemError("fsync", subject: partial.path) }
        file.close()
        guard rename(partial.path, destination.path) == 0 else { throw SystemError("rename", subject: partial.path) }
    }

    /// Forgets what has arrived: the next attempt starts over.
    func discard() {
        unlink(partial.path)
    }
}
