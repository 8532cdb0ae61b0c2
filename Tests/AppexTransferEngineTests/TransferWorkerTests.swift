import AppexCore
import AppexRegistry
import AppexSystem
import AppexTestServer
import AppexTesting
import AppexTransferEngine
import Foundation
import Glibc
import Testing

/// The transfers' process, run here in the test's process: alone in its home, woken through
/// its socket, stopping an attempt whose task ended elsewhere, and gone once idle.
@Suite final class TransferWorkerTests: TransferFixture {
    @Test func itPerformsTheHomesTransfersThenExitsOnceIdle() async throws {
        let task = try registry.addTransfer(SampleTransfers.download(server.url("/bytes/100000"), into: test.home.groupsDirectory))
        #expect(try await worker(idle: .milliseconds(200)).run() == .finished)
        #expect(try registry.transfer(task.id)?.state == .completed)
        #expect(!FileManager.default.fileExists(atPath: socketPath), "no one can reach a process that has gone")
        #expect(await lockIsReleased())
    }

    @Test func aSecondProcessLeavesTheHomeToTheFirst() async throws {
        let first = start(worker(idle: .seconds(60)))
        #expect(await eventually { ProcessLock.holder(at: self.lockPath) == getpid() })
        #expect(try await worker(idle: .seconds(60)).run() == .alreadyRunning(getpid()))
        first.cancel()
        #expect(try await first.value == .finished)
        #expect(await lockIsReleased())
    }

    @Test func aConnectionToItsSocketMakesItLookAgain() async throws {
        let running = start(worker(idle: .seconds(60)))
        #expect(await eventually { FileManager.default.fileExists(atPath: self.socketPath) })
        let task = try registry.addTransfer(SampleTransfers.download(server.url("/bytes/100000"), into: test.home.groupsDirectory))
        // Idle, it would not look at the registry again for a minute. The socket's file is there
        // from bind, a moment before the worker listens, when a connection is refused.
        #expect(await eventually {
            guard let connection = try? UnixSocket.connect(to: self.socketPath) else { return false }
            connection.close()
            return true
        }, "the worker listens")
        let ended = await eventually(seconds: 10) { (try? self.registry.transfer(task.id))??.state == .completed }
        running.cancel()
        _ = try await running.value
        #expect(ended, "woken, it performed the task added: \(String(describing: try? registry.transfer(task.id)))")
    }

    @Test func aTaskEndedElsewhereStopsItsAttempt() async throws {
        server.script("/bytes/3000000", [.stall(after: 1_000_000)])
        let task = try registry.addTransfer(SampleTransfers.download(server.url("/bytes/3000000"), into: test.home.groupsDirectory))
        let partial = try #require(task.partialFile)
        let running = start(worker(idle: .seconds(60)))
        let far = await eventually(seconds: 30) { ((try? self.registry.transfer(task.id))??.bytesReceived ?? 0) >= 1_000_000 }
        #expect(far && FileManager.default.fileExists(atPath: partial.path))
        // As appexd cancels a task for a process attached to its session: in the registry, then a wake.
        #expect(try registry.finishTransfer(task.id, .cancelled, failure: .cancelled))
        try UnixSocket.connect(to: socketPath).close()
        let stopped = await eventually(seconds: 10) { !FileManager.default.fileExists(atPath: partial.path) }
        running.cancel()
        _ = try await running.value
        #expect(stopped, "the stalled attempt stopped, and its kept bytes went")
        #expect(try registry.transfer(task.id)?.state == .cancelled)
        let events = try registry.transferEvents(appIdentifier: task.appIdentifier, session: task.sessionIdentifier)
        #expect(events.map(\.kind) == [.completed], "the end is recorded once")
    }

    // MARK: Helpers

    var socketPath: String { test.home.transfersSocketURL.path }
    var lockPath: String { test.home.transfersLockURL.path }

    /// Whether no one holds the home's transfers lock, within a few seconds: a test in this
    /// process that spawns a program forks, and until the fork has closed the descriptors it
    /// copied (at once, but a fork of a large process on a loaded machine takes a while) the
    /// lock's open file is held there too. CI's ThreadSanitizer run once saw it so.
    func lockIsReleased() async -> Bool {
        await eventually(seconds: 10) { ProcessLock.holder(at: self.lockPath) == nil }
    }

    func start(_ worker: TransferWorker) -> Task<TransferWorker.Outcome, any Error> {
        Task { try await worker.run() }
    }

    func worker(idle: Duration) -> TransferWorker {
        TransferWorker(home: test.home, idleGrace: idle, policy: TransferFixture.policy)
    }
}
