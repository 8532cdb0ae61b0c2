import AppexFUSE
import AppexFileProvider
public import Foundation

/// A provider's domain, mounted: its replica served on a folder until ``stop()``.
public final class DomainMount: Sendable {
    /// The folder the domain is mounted on.
    public let path: String
    /// What the mount serves.
    public let fileSystem: ReplicaFileSystem
    private let server: FUSEServer

    /// Mounts the replica in `replica` of `provider`'s domain on `mountPoint` (made if
    /// missing). Each request the mount's users make ends by `deadline`; a change that fails to
    /// reach the provider is tried again after `retryPause`, then twice as long, and so on.
    public init(provider: any ProviderCalls, replica: URL, mountPoint: URL, deadline: Duration = .seconds(30),
                retryPause: Duration = .seconds(1), report: (@Sendable (String) -> Void)? = nil) throws {
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let store = try ReplicaStore(folder: replica)
        fileSystem = ReplicaFileSystem(store: store, provider: provider, retryPause: retryPause, report: report)
        let mount = try FUSEMount.mount(at: mountPoint.path, name: "appex-\(provider.domain.rawValue)")
        path = mountPoint.path
        server = FUSEServer(mount: mount, fileSystem: fileSystem, deadline: deadline)
        server.start()
    }

    /// Unmounts, and returns once the mount's server has stopped.
    public func stop() {
        server.stop()
        fileSystem.stop()
    }
}
