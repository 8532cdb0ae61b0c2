public import Foundation

extension AppexHome {
    /// The lock file that makes a folder a file-coordination root: coordinated access to
    /// anything under the folder takes its locks on this one file. Every app's, extension's
    /// and app group's container has one, so a container's processes coordinate with each
    /// other wherever the container is and however their sandboxes see it.
    public static let coordinationLockName = ".appex-coordination"

    /// The user's coordination lock, for items in no container: `coordination.lock` in the
    /// runtime folder, which no sandboxed extension can reach.
    public var coordinationLockURL: URL { runtimeDirectory.appendingPathComponent("coordination.lock") }

    /// Makes the container folder `url`, if it isn't there, with its coordination lock.
    public static func prepareContainer(at url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let lock = url.appendingPathComponent(coordinationLockName).path
        do {
            close(try openCoordinationLock(at: lock, flags: O_WRONLY))
        } catch {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: lock, NSUnderlyingErrorKey: error])
        }
    }

    /// Opens the coordination lock file at `path` with `flags`, making it if it isn't there.
    ///
    /// The processes of a container can write its folder, so the lock may be anything: a
    /// link to another file, which must not be made or opened, or a FIFO, which would block
    /// whoever opens it. So a link is never followed and a FIFO never waited on; anything but
    /// a regular file is removed and the lock made again.
    ///
    /// - Returns: the open descriptor, which the caller closes.
    /// - Throws: the error of the last attempt, when the lock can't be made a regular file
    ///   (a folder in its place gives `EISDIR`).
    public static func openCoordinationLock(at path: String, flags: Int32) throws(POSIXError) -> Int32 {
        for attempt in 0..<2 {
            let descriptor = open(path, flags | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
            if descriptor >= 0 {
                var status = stat()
                if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG { return descriptor }
                close(descriptor)
                errno = EINVAL // a FIFO, socket or device: not a lock
            } else if ![ELOOP, ENXIO, ETXTBSY].contains(errno) {
                break
            }
            if attempt == 0 { unlink(path) }
        }
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
