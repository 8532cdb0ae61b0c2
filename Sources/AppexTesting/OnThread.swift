import AppexLocking
import Foundation

/// Runs blocking work (waiting for a child process, copying a bundle, polling a socket) on a
/// thread of its own, and awaits its result, so it never holds up Swift's cooperative pool.
///
/// The pool has one thread per core. Tests run in parallel on it, so a test that blocks one
/// of its threads stalls every other test's continuations, and on a two-core machine a few
/// blocking tests can hold up a timing-sensitive one for minutes. At most one piece of work
/// per core (and at least two) runs at a time; the rest wait their turn as suspended tasks,
/// so a run's heavy work (bundles copied, commands run) never overloads the machine either.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    await BlockingWork.turns.enter()
    defer { BlockingWork.turns.leave() }
    return try await onThreadOutOfTurn(body)
}

/// Runs blocking work on a thread of its own, as ``onThread(_:)`` does, but without waiting
/// for a turn: for waiting that lasts while the test goes on, such as on a fake server the
/// test talks to, which would otherwise hold a turn the test's own commands wait for.
public func onThreadOutOfTurn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// The turns blocking work takes: a counting semaphore whose waiters are suspended tasks.
final class BlockingWork: Sendable {
    static let turns = BlockingWork(width: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>

    init(width: Int) {
        state = Locked(State(free: width))
    }

    /// Waits for a turn.
    func enter() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Ends a turn, handing it to the longest waiter.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
