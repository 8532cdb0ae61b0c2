public import AppexCore

/// How a daemon runs: which home it serves, and its timing.
public struct DaemonConfiguration: Sendable {
    /// The home whose registry and runtime folder the daemon serves.
    public var home: AppexHome
    /// How long an extension has between being told to end and being killed.
    public var terminationGrace: Duration
    /// How often the supervisor checks deadlines and memory while extensions run.
    public var tickInterval: Duration
    /// Overrides every point's idle grace period, for tests and tuning.
    public var idleGracePeriodOverride: Duration?
    /// Overrides every point's launch deadline, for tests and tuning.
    public var launchDeadlineOverride: Duration?

    public init(home: AppexHome, terminationGrace: Duration = .seconds(1), tickInterval: Duration = .milliseconds(50),
                idleGracePeriodOverride: Duration? = nil, launchDeadlineOverride: Duration? = nil) {
        self.home = home
        self.terminationGrace = terminationGrace
        self.tickInterval = tickInterval
        self.idleGracePeriodOverride = idleGracePeriodOverride
        self.launchDeadlineOverride = launchDeadlineOverride
    }

    /// Reads the overrides from `APPEX_IDLE_GRACE_MS` and `APPEX_LAUNCH_DEADLINE_MS`.
    public static func fromEnvironment(_ environment: [String: String], home: AppexHome) -> DaemonConfiguration {
        var configuration = DaemonConfiguration(home: home)
        configuration.idleGracePeriodOverride = environment["APPEX_IDLE_GRACE_MS"].flatMap(Int.init).map { .milliseconds($0) }
        configuration.launchDeadlineOverride = environment["APPEX_LAUNCH_DEADLINE_MS"].flatMap(Int.init).map { .milliseconds($0) }
        return configuration
    }

    /// The policy extensions of `point` run under, with this configuration's overrides.
    func policy(for point: String) -> ExtensionPointPolicy {
        var policy = ExtensionPoint.catalog[point]?.policy ?? ExtensionPointPolicy(memoryLimit: .mebibytes(120))
        if let idleGracePeriodOverride { policy.idleGracePeriod = idleGracePeriodOverride }
        if let launchDeadlineOverride { policy.launchDeadline = launchDeadlineOverride }
        return policy
    }
}
