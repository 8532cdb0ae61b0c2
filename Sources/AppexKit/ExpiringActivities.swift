import Foundation
import Synchronization

/// The activities this process runs with `ProcessInfo.performExpiringActivity(withReason:using:)`,
/// which the extension runtime expires when appexd ends the process.
///
/// As on Apple's systems, each block runs concurrently with `false`, to start its work; when
/// the process is about to end, each one still running is called again with `true`, to
/// stop, and the process ends once they have returned, or once its grace is over. A block
/// asked for while the process ends runs with `true` at once.
///
/// Each call runs on a thread of its own, not on Dispatch's global queue: an activity blocks
/// while it works, and on Linux the global queue has about one thread per core, which a few
/// blocked activities would take, leaving none for the call that tells them to stop.
final class ExpiringActivities: Sendable {
    static let shared = ExpiringActivities()

    private struct State {
        var running: [UUID: @Sendable (Bool) -> Void] = [:]
        var expiring = false
    }

    private let state = Mutex(State())
    /// Entered for each block running with `false`, left as it returns.
    private let unfinished = DispatchGroup()

    func perform(_ block: @escaping @Sendable (Bool) -> Void) {
        let id = UUID()
        // Entered under the lock, so that `expire` never waits on the group before it.
        let expired = state.withLock { state in
            if !state.expiring {
                state.running[id] = block
                unfinished.enter()
            }
            return state.expiring
        }
        Thread.detachNewThread { [self] in
            block(expired)
            guard !expired else { return }
            state.withLock { _ = $0.running.removeValue(forKey: id) }
            unfinished.leave()
        }
    }

    /// Calls each running block with `true`, and waits at most `grace` for every block to
    /// return; returns how many were still running when the grace was over.
    @discardableResult
    func expire(within grace: Duration) -> Int {
        let running = state.withLock { state in
            state.expiring = true
            return Array(state.running.values)
        }
        guard !running.isEmpty else { return 0 }
        let deadline = DispatchTime.now() + .milliseconds(Int(grace / .milliseconds(1)))
        let expirations = DispatchGroup()
        for block in running {
            expirations.enter()
            Thread.detachNewThread {
                block(true)
                expirations.leave()
            }
        }
        _ = expirations.wait(timeout: deadline)
        guard unfinished.wait(timeout: deadline) == .timedOut else { return 0 }
        return state.withLock { $0.running.count }
    }
}
