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
        let descriptor = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: lock, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
        }
        close(descriptor)
    }
}
