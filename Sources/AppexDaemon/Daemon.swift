import AppexCore
import AppexIPC
import AppexRegistry
import AppexSystem
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// appexd: the per-user daemon. It answers queries, launches extensions for hosts'
/// requests, and supervises them under their point's policy.
///
/// It is a `ServiceGroup` of three services: the listener, the supervisor, and the one that
/// keeps the transfers' process (appex-transfers) running while there are transfers to
/// perform. SIGTERM and SIGINT shut it down gracefully: running extensions are told, then
/// ended. Transfers go on in their own process.
///
/// ```swift
/// try await Daemon(configuration: DaemonConfiguration(home: .current)).run()
/// ```
public struct Daemon: Sendable {
    public let configuration: DaemonConfiguration

    public init(configuration: DaemonConfiguration) {
        self.configuration = configuration
    }

    /// Serves until SIGTERM or SIGINT. Throws ``DaemonError/alreadyRunning`` if another
    /// daemon serves the home.
    public func run() async throws {
        let home = configuration.home
        OpenFileLimit.raiseToHardLimit()
        try home.prepareRuntimeDirectory()
        guard let lock = try ProcessLock.acquire(at: home.daemonLockURL.path) else {
            throw DaemonError.alreadyRunning(socket: home.daemonSocketURL.path)
        }
        DaemonLog.keep(at: home.daemonLogURL, limit: configuration.logLimit)
        let registry = try Registry(home: home)
        let listener: Listener
        if let activated = SocketActivation.listeningSocket() {
            listener = Listener(adopting: activated, path: home.daemonSocketURL.path)
        } else {
            // We hold the lock, so a socket file left here belongs to a daemon that died.
            unlink(home.daemonSocketURL.path)
            listener = try Listener(path: home.daemonSocketURL.path)
        }
        let supervisor = Supervisor(configuration: configuration, registry: registry)
        var logger = Logger(label: "appexd")
        logger.logLevel = .notice
        let group = ServiceGroup(
            services: [SupervisorService(supervisor: supervisor), ListenerService(listener: listener, supervisor: supervisor),
                       TransferService(sessions: supervisor.transferSessions, checkInterval: configuration.transfersCheckInterval)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            cancellationSignals: [],
            logger: logger
        )
        try await group.run()
        withExtendedLifetime(lock) {}
    }
}

/// Why a daemon could not start.
public enum DaemonError: Error, Sendable, CustomStringConvertible {
    /// Another daemon already serves this home.
    case alreadyRunning(socket: String)

    public var description: String {
        switch self {
        case .alreadyRunning(let socket): "another appexd already serves \(socket)"
        }
    }
}
