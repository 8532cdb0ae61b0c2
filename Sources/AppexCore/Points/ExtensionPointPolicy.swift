/// What the system allows the extensions of one point: memory, deadlines and capabilities.
///
/// A policy is data. Adding an extension point is adding a value, never a change to the
/// launcher or the supervisor.
public struct ExtensionPointPolicy: Sendable, Hashable {
    /// The memory an extension process may write (its footprint: anonymous and shared-memory
    /// pages, not the files it maps) before it is ended with "memory limit".
    public var memoryLimit: Int
    /// The most processes and threads an extension may have at once: a fork or a new thread
    /// past it fails with EAGAIN.
    public var processLimit: Int
    /// How long an extension may take from launch to checking in before it is ended.
    public var launchDeadline: Duration
    /// How long one request may run before it is ended, or `nil` for no deadline.
    public var requestDeadline: Duration?
    /// How long an idle extension process lives after its last request ends.
    public var idleGracePeriod: Duration
    /// Whether an extension of this point may ask the system to open URLs.
    public var mayOpenURLs: Bool
    /// Whether an extension of this point must declare `NSExtensionActivationRule`.
    public var requiresActivationRule: Bool

    public init(
        memoryLimit: Int,
        processLimit: Int = 256,
        launchDeadline: Duration = .seconds(1),
        requestDeadline: Duration? = nil,
        idleGracePeriod: Duration = .seconds(5),
        mayOpenURLs: Bool = false,
        requiresActivationRule: Bool = false
    ) {
        self.memoryLimit = memoryLimit
        self.processLimit = processLimit
        self.launchDeadline = launchDeadline
        self.requestDeadline = requestDeadline
        self.idleGracePeriod = idleGracePeriod
        self.mayOpenURLs = mayOpenURLs
        self.requiresActivationRule = requiresActivationRule
    }
}

extension Int {
    /// `n` mebibytes, in bytes.
    public static func mebibytes(_ count: Int) -> Int { count * 1024 * 1024 }
}
