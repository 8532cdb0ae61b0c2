import AppexLocking
public import Foundation

/// The settings of a ``URLSession``, as `URLSessionConfiguration` on Apple's systems. Made
/// with ``background(withIdentifier:)``, they give the session's transfers to appexd, which
/// performs them whether or not the process that made them still runs; ``default`` and
/// ``ephemeral`` make sessions whose tasks run in this process, through the AppexNetworking
/// product (docs/transfers.md, "In-process sessions"). A session copies its configuration
/// when it is made.
open class URLSessionConfiguration: @unchecked Sendable {
    private struct Settings {
        var sharedContainerIdentifier: String?
        var timeoutIntervalForRequest: TimeInterval = 60
        var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
        var httpAdditionalHeaders: [String: String]?
        var sessionSendsLaunchEvents = true
        var isDiscretionary = false
        var allowsCellularAccess = true
        var waitsForConnectivity = false
        var allowsExpensiveNetworkAccess = true
        var allowsConstrainedNetworkAccess = true
        var httpMaximumConnectionsPerHost = 6
        var requestCachePolicy = URLRequest.CachePolicy.useProtocolCachePolicy
        var httpShouldSetCookies = true
    }

    /// The background session's identifier: unique within the containing app, whose app
    /// and extensions share the session (one process at a time); nil for an in-process one.
    public let identifier: String?
    /// Whether an in-process session keeps no cache, cookies or credentials past its life.
    let isEphemeral: Bool
    private let settings: Locked<Settings>

    private init(identifier: String?, ephemeral: Bool = false, settings: Settings) {
        self.identifier = identifier
        isEphemeral = ephemeral
        self.settings = Locked(settings)
    }

    /// A configuration whose sessions' uploads and downloads appexd performs, named
    /// `identifier`; a session made with the same identifier later, in the app or one of its
    /// extensions, finds the tasks and hears their events.
    open class func background(withIdentifier identifier: String) -> URLSessionConfiguration {
        URLSessionConfiguration(identifier: identifier, settings: Settings())
    }

    /// A new configuration for a session whose tasks run in this process, with the shared
    /// cookie store and cache, as Apple's `default`.
    open class var `default`: URLSessionConfiguration {
        URLSessionConfiguration(identifier: nil, settings: Settings())
    }

    /// A new configuration for a session whose tasks run in this process and that keeps no
    /// cookies, cache or credentials on disk, as Apple's `ephemeral`.
    open class var ephemeral: URLSessionConfiguration {
        URLSessionConfiguration(identifier: nil, ephemeral: true, settings: Settings())
    }

    /// The app group whose container downloads land in. It is required here, in an app as
    /// in an extension, and the caller's bundle must be entitled to the group.
    public var sharedContainerIdentifier: String? {
        get { self[\.sharedContainerIdentifier] }
        set { self[\.sharedContainerIdentifier] = newValue }
    }

    /// The longest wait for the next byte before an attempt fails and is retried (at most a
    /// day); a request's own `timeoutInterval`, when shorter, wins. 60 seconds by default.
    public var timeoutIntervalForRequest: TimeInterval {
        get { self[\.timeoutIntervalForRequest] }
        set { self[\.timeoutIntervalForRequest] = newValue }
    }

    /// How long a task may take in all, retries included, before it fails (at most 30
    /// days). 7 days by default.
    public var timeoutIntervalForResource: TimeInterval {
        get { self[\.timeoutIntervalForResource] }
        set { self[\.timeoutIntervalForResource] = newValue }
    }

    /// How an in-process session's requests use the cache, unless a request says.
    public var requestCachePolicy: URLRequest.CachePolicy {
        get { self[\.requestCachePolicy] }
        set { self[\.requestCachePolicy] = newValue }
    }

    /// Whether an in-process session sends and keeps cookies (true by default).
    public var httpShouldSetCookies: Bool {
        get { self[\.httpShouldSetCookies] }
        set { self[\.httpShouldSetCookies] = newValue }
    }

    /// Header fields added to each request that does not set them itself.
    public var httpAdditionalHeaders: [String: String]? {
        get { self[\.httpAdditionalHeaders] }
        set { self[\.httpAdditionalHeaders] = newValue }
    }

    // MARK: Apple's flags, kept as set

    /// Whether the app is launched for the session's events (true by default). Set to false,
    /// the events of the tasks made meanwhile wait until a process of the app makes the session.
    public var sessionSendsLaunchEvents: Bool {
        get { self[\.sessionSendsLaunchEvents] }
        set { self[\.sessionSendsLaunchEvents] = newValue }
    }

    /// Whether the system may wait for a better time, such as power and Wi-Fi (false by
    /// default). appexd starts each transfer at once whatever its value.
    public var isDiscretionary: Bool {
        get { self[\.isDiscretionary] }
        set { self[\.isDiscretionary] = newValue }
    }

    /// Whether cellular connections may be used (true by default). Linux doesn't say which
    /// connection is cellular, so it is not acted on.
    public var allowsCellularAccess: Bool {
        get { self[\.allowsCellularAccess] }
        set { self[\.allowsCellularAccess] = newValue }
    }

    /// Ignored by background sessions, as on Apple's systems: they always wait for
    /// connectivity, and appexd tries a transfer again until its resource timeout.
    public var waitsForConnectivity: Bool {
        get { self[\.waitsForConnectivity] }
        set { self[\.waitsForConnectivity] = newValue }
    }

    /// Whether expensive connections may be used (true by default); not acted on.
    public var allowsExpensiveNetworkAccess: Bool {
        get { self[\.allowsExpensiveNetworkAccess] }
        set { self[\.allowsExpensiveNetworkAccess] = newValue }
    }

    /// Whether constrained (Low Data Mode) connections may be used (true by default); not acted on.
    public var allowsConstrainedNetworkAccess: Bool {
        get { self[\.allowsConstrainedNetworkAccess] }
        set { self[\.allowsConstrainedNetworkAccess] = newValue }
    }

    /// The most connections to one host at once (6 by default); not acted on.
    public var httpMaximumConnectionsPerHost: Int {
        get { self[\.httpMaximumConnectionsPerHost] }
        set { self[\.httpMaximumConnectionsPerHost] = newValue }
    }

    /// One setting, read or written under the lock.
    private subscript<Value: Sendable>(_ setting: WritableKeyPath<Settings, Value>) -> Value {
        get { settings.withLock { $0[keyPath: setting] } }
        set { settings.withLock { $0[keyPath: setting] = newValue } }
    }

    /// What an in-process session's transport applies.
    var inProcessSettings: InProcessSettings {
        settings.withLock { settings in
            InProcessSettings(ephemeral: isEphemeral, timeoutIntervalForRequest: settings.timeoutIntervalForRequest,
                              timeoutIntervalForResource: settings.timeoutIntervalForResource,
                              httpAdditionalHeaders: settings.httpAdditionalHeaders ?? [:], requestCachePolicy: settings.requestCachePolicy,
                              httpShouldSetCookies: settings.httpShouldSetCookies,
                              httpMaximumConnectionsPerHost: settings.httpMaximumConnectionsPerHost)
        }
    }

    /// A copy, which later changes to this configuration don't reach.
    func copy() -> URLSessionConfiguration {
        URLSessionConfiguration(identifier: identifier, ephemeral: isEphemeral, settings: settings.withLock { $0 })
    }
}
