public import Foundation
import Synchronization

/// The app's shared application object, as on Apple's systems: what only a containing app
/// may use, never an extension. AppexKit declares `UIApplication` unavailable, so extension
/// code that reaches for it fails to compile, and `appex validate` reports an extension
/// executable that links this module.
///
/// Here it grants background tasks: time to finish work when the app is asked to end.
/// Linux never suspends an app, but it does end one, with SIGTERM, at logout, shutdown or
/// `systemctl stop`; a background task holds that off, as it holds off suspension on iOS.
public final class UIApplication: Sendable {
    /// The one application object of this process.
    public static let shared = UIApplication()

    let tasks = BackgroundTasks()

    private init() {}
}

/// A background task's identifier.
public struct UIBackgroundTaskIdentifier: RawRepresentable, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// What `beginBackgroundTask` returns when no task can begin: the app is already ending.
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

extension UIApplication {
    /// Begins a task that should finish even if the app is asked to end meanwhile.
    ///
    /// When SIGTERM comes while tasks run, the app keeps running until the last one ends,
    /// and then ends as SIGTERM would have ended it, or until ``terminationGracePeriod``
    /// is over, when each running task's `handler` is called (on an internal thread) and
    /// the app ends once they have returned. Each task must be ended with
    /// ``endBackgroundTask(_:)``. Returns `.invalid` once the grace period is over.
    public func beginBackgroundTask(withName name: String? = nil, expirationHandler handler: (@Sendable () -> Void)? = nil)
        -> UIBackgroundTaskIdentifier
    {
        tasks.begin(name: name, expiration: handler)
    }

    /// Begins a background task; see ``beginBackgroundTask(withName:expirationHandler:)``.
    public func beginBackgroundTask(expirationHandler handler: (@Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier {
        tasks.begin(name: nil, expiration: handler)
    }

    /// Ends a background task. Ending the last one while SIGTERM waits ends the app.
    public func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {
        tasks.end(identifier)
    }

    /// How long the app has left to finish its tasks: unlimited (`.greatestFiniteMagnitude`)
    /// until SIGTERM comes, then what is left of ``terminationGracePeriod``.
    public var backgroundTimeRemaining: TimeInterval { tasks.timeRemaining }

    /// How long tasks may hold off the end once SIGTERM has come: 25 s by default, within
    /// systemd's 90 s before it sends SIGKILL.
    public var terminationGracePeriod: Duration {
        get { tasks.gracePeriod }
        set { tasks.gracePeriod = newValue }
    }
}
