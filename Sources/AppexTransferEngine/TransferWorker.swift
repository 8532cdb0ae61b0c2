public import AppexCore
import AppexRegistry
import AppexSystem
public import Foundation
import Glibc

/// The transfers' process (appex-transfers, docs/transfers.md): performs one home's
/// transfers, the only process doing so, until none has been left for a while.
///
/// It holds the home's transfers lock, so a second process started meanwhile exits at once,
/// and listens at the home's transfers socket, where a connection means "look at the registry
/// again": appexd added a task, or ended one. To stop, it closes the socket and releases the
/// lock before it looks a last time, so a task added meanwhile is either seen by that look or
/// finds no socket, and then appexd starts a new process.
///
/// ```swift
/// let outcome = try await TransferWorker(home: .current).run()
/// ```
public struct TransferWorker: Sendable {
    /// How a run ended.
    public enum Outcome: Sendable, Equatable {
        /// No task was left to perform, or the calling task was cancelled.
        case finished
        /// Another process, with this pid if it said, performs the home's transfers.
        case alreadyRunning(Int32?)
    }

    /// The home whose transfers to perform.
    public let home: AppexHome
    /// How long to stay with nothing to do before exiting.
    public var idleGrace: Duration
    /// How the engine performs the transfers.
    public var policy: TransferPolicy
    /// A PEM file of the certificate authorities HTTPS servers are verified against, instead
    /// of the system's (``TransferEngine/init(registry:policy:trustedCertificates:observer:report:)``).
    public var trustedCertificates: URL?

    public init(home: AppexHome, idleGrace: Duration = .seconds(30), policy: TransferPolicy = .standard, trustedCertificates: URL? = nil) {
        self.home = home
        self.idleGrace = idleGrace
        self.policy = policy
        self.trustedCertificates = trustedCertificates
    }

    /// Performs the home's transfers until none is left and `idleGrace` has passed, or until
    /// the calling task is cancelled; then the running attempts wait for the next process.
    public func run() async throws -> Outcome {
        try home.prepareRuntimeDirectory()
        let lockPath = home.transfersLockURL.path
        guard var lock = try ProcessLock.acquire(at: lockPath) else { return .alreadyRunning(ProcessLock.holder(at: lockPath)) }
        let registry = try Registry(home: home)
        while true {
            let engine = TransferEngine(registry: registry, downloadsFolder: home.groupsDirectory, policy: policy,
                                        trustedCertificates: trustedCertificates)
            let wakes = try WakeListener(path: home.transfersSocketURL.path, engine: engine)
            await engine.run(untilIdleFor: idleGrace)
            wakes.stop()
            lock.release()
            guard !Task.isCancelled, try registry.hasUnfinishedTransfers() else { return .finished }
            // A task came as this process was stopping: perform it, unless a new process already does.
            guard let again = try ProcessLock.acquire(at: lockPath) else { return .finished }
            lock = again
        }
    }
}

/// The transfers' socket: a thread accepts each connection, closes it, and wakes the engine.
private final class WakeListener: Sendable {
    private let path: String
    private let socket: AppexSystem.FileDescriptor

    init(path: String, engine: TransferEngine) throws(SystemError) {
        // The lock is ours, so a socket file left here is a dead process's.
        unlink(path)
        self.path = path
        let socket = try UnixSocket.listen(at: path)
        self.socket = socket
        Thread.detachNewThread {
            while let connection = try? UnixSocket.accept(socket) {
                connection.close()
                engine.wake()
            }
            socket.close()
        }
    }

    /// Removes the socket file, so that no one reaches this process any more, and ends the thread.
    func stop() {
        unlink(path)
        UnixSocket.shutdown(socket)
    }
}
