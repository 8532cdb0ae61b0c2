public import AppexCore
public import AppexSandbox
import AppexLauncher
import AppexSystem
import Foundation

/// How a daemon runs: which home it serves, and its timing.
public struct DaemonConfiguration: Sendable {
    /// The home whose registry and runtime folder the daemon serves.
    public var home: AppexHome
    /// How long an extension has between being told to end and being killed.
    public var terminationGrace: Duration
    /// How long a host asked to close an idle session (`SessionIdle`) has before appexd ends
    /// the process anyway. Long, since a request the host sent on the session meanwhile may
    /// wait unread in appexd's socket on a loaded machine, and ending the process would
    /// interrupt it; only a host that never answers meets it.
    public var idleSessionCloseDeadline: Duration
    /// How often the supervisor checks deadlines and memory while extensions run.
    public var tickInterval: Duration
    /// Overrides every point's idle grace period, for tests and tuning.
    public var idleGracePeriodOverride: Duration?
    /// Overrides every point's launch deadline, for tests and tuning.
    public var launchDeadlineOverride: Duration?
    /// Overrides every point's request deadline (and gives one to points without), for tests and tuning.
    public var requestDeadlineOverride: Duration?
    /// Overrides every point's memory limit, in bytes, for tests and tuning.
    public var memoryLimitOverride: Int?
    /// Overrides every point's limit on processes and threads, for tests and tuning.
    public var processLimitOverride: Int?
    /// How often appexd checks that the transfers' process runs while there are transfers.
    public var transfersCheckInterval: Duration
    /// The sandbox extensions run in: this kernel's layers, strict as `APPEX_SANDBOX` says.
    public var sandbox: Sandbox
    /// What appexd allows its clients' connections.
    public var clientLimits: ClientLimits
    /// The size, in bytes, past which appexd's log moves to `appexd.log.1` (``DaemonLog``), and
    /// appex-transfers' to `transfers.log.1` when appexd next starts it.
    public var logLimit: Int
    /// The preloaded launcher's program (`appex-launcher`, docs/zygote.md) that extensions
    /// it can load are forked from, or nil to spawn every extension.
    public var launcher: String?
    /// appexd's AppexKit (`libAppexKit.so`), which extensions linked to the shared AppexKit run
    /// with, or nil if it has none.
    public var appexKit: String?

    public init(home: AppexHome, terminationGrace: Duration = .seconds(1), idleSessionCloseDeadline: Duration = .seconds(10),
                tickInterval: Duration = .milliseconds(50),
                idleGracePeriodOverride: Duration? = nil, launchDeadlineOverride: Duration? = nil,
                requestDeadlineOverride: Duration? = nil, memoryLimitOverride: Int? = nil, processLimitOverride: Int? = nil,
                transfersCheckInterval: Duration = .seconds(10), sandbox: Sandbox = Sandbox(), clientLimits: ClientLimits = ClientLimits(),
                logLimit: Int = .mebibytes(8), launcher: String? = nil, appexKit: String? = nil) {
        self.home = home
        self.terminationGrace = terminationGrace
        self.idleSessionCloseDeadline = idleSessionCloseDeadline
        self.tickInterval = tickInterval
        self.idleGracePeriodOverride = idleGracePeriodOverride
        self.launchDeadlineOverride = launchDeadlineOverride
        self.requestDeadlineOverride = requestDeadlineOverride
        self.memoryLimitOverride = memoryLimitOverride
        self.processLimitOverride = processLimitOverride
        self.transfersCheckInterval = transfersCheckInterval
        self.sandbox = sandbox
        self.clientLimits = clientLimits
        self.logLimit = logLimit
        self.launcher = launcher
        self.appexKit = appexKit
    }

    /// Reads the overrides from `APPEX_IDLE_GRACE_MS`, `APPEX_LAUNCH_DEADLINE_MS`,
    /// `APPEX_REQUEST_DEADLINE_MS`, `APPEX_TERMINATION_GRACE_MS`, `APPEX_IDLE_CLOSE_MS`, `APPEX_TRANSFERS_CHECK_MS` and
    /// `APPEX_HANDSHAKE_DEADLINE_MS`, `APPEX_FRAME_DEADLINE_MS` (milliseconds),
    /// `APPEX_MEMORY_LIMIT_MB` (mebibytes), `APPEX_PROCESS_LIMIT` (processes and threads),
    /// `APPEX_LOG_LIMIT_KB` (kibibytes), and `APPEX_DESCRIPTORS_PER_PROCESS`,
    /// `APPEX_DESCRIPTORS_IN_FLIGHT` and `APPEX_RESERVED_DESCRIPTORS` (descriptors, ``ClientLimits``);
    /// and finds the launcher (`APPEX_LAUNCHER`, `off` for none; else beside appexd) and
    /// AppexKit (`APPEX_KIT`, `off` for none; else `libAppexKit.so` beside appexd).
    public static func fromEnvironment(_ environment: [String: String], home: AppexHome) -> DaemonConfiguration {
        func milliseconds(_ name: String) -> Duration? { environment[name].flatMap(Int.init).map { .milliseconds($0) } }
        var configuration = DaemonConfiguration(home: home)
        configuration.idleGracePeriodOverride = milliseconds("APPEX_IDLE_GRACE_MS")
        configuration.launchDeadlineOverride = milliseconds("APPEX_LAUNCH_DEADLINE_MS")
        configuration.requestDeadlineOverride = milliseconds("APPEX_REQUEST_DEADLINE_MS")
        if let grace = milliseconds("APPEX_TERMINATION_GRACE_MS") { configuration.terminationGrace = grace }
        if let deadline = milliseconds("APPEX_IDLE_CLOSE_MS") { configuration.idleSessionCloseDeadline = deadline }
        if let check = milliseconds("APPEX_TRANSFERS_CHECK_MS") { configuration.transfersCheckInterval = check }
        if let deadline = milliseconds("APPEX_HANDSHAKE_DEADLINE_MS") { configuration.clientLimits.handshakeDeadline = deadline }
        if let deadline = milliseconds("APPEX_FRAME_DEADLINE_MS") { configuration.clientLimits.frameDeadline = deadline }
        if let count = environment["APPEX_DESCRIPTORS_PER_PROCESS"].flatMap(Int.init) { configuration.clientLimits.descriptorsPerProcess = count }
        if let count = environment["APPEX_DESCRIPTORS_IN_FLIGHT"].flatMap(Int.init) { configuration.clientLimits.descriptorsInFlight = count }
        if let count = environment["APPEX_RESERVED_DESCRIPTORS"].flatMap(Int.init) { configuration.clientLimits.reservedDescriptors = count }
        configuration.memoryLimitOverride = environment["APPEX_MEMORY_LIMIT_MB"].flatMap(Int.init).map { .mebibytes($0) }
        configuration.processLimitOverride = environment["APPEX_PROCESS_LIMIT"].flatMap(Int.init)
        if let limit = environment["APPEX_LOG_LIMIT_KB"].flatMap(Int.init), limit > 0 { configuration.logLimit = limit * 1024 }
        if environment[CompanionProgram.launcher.variable] != "off" { configuration.launcher = CompanionProgram.launcher.locate(environment: environment) }
        configuration.appexKit = SharedAppexKit.locate(environment: environment, beside: CompanionProgram.runningProgramDirectory.path)
        return configuration
    }

    /// The policy extensions of `point` run under, with this configuration's overrides.
    func policy(for point: ExtensionPoint) -> ExtensionPointPolicy {
        var policy = point.policy
        if let idleGracePeriodOverride { policy.idleGracePeriod = idleGracePeriodOverride }
        if let launchDeadlineOverride { policy.launchDeadline = launchDeadlineOverride }
        if let requestDeadlineOverride { policy.requestDeadline = requestDeadlineOverride }
        if let memoryLimitOverride { policy.memoryLimit = memoryLimitOverride }
        if let processLimitOverride { policy.processLimit = processLimitOverride }
        return policy
    }
}
