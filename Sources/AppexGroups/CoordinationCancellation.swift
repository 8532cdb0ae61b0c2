import AppexLocking
import Foundation

/// Lets ``NSFileCoordinator/cancel()`` end one coordination's waits: for another's locks, and
/// for presenters to answer. A cancelled coordination never runs its accessor, and fails
/// with `NSUserCancelledError`; one whose accessor has begun is not affected.
final class CoordinationCancellation: Sendable {
    private let state = Locked(State())

    private struct State {
        var isCancelled = false
        /// What the coordination waits on now, signalled by a cancel.
        var waiting: DispatchSemaphore?
    }

    /// Ends the coordination's wait now, and any it would begin.
    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            state.waiting?.signal()
        }
    }

    var isCancelled: Bool { state.withLock(\.isCancelled) }

    /// Waits until `done` is signalled, or the coordination is cancelled. Every `slice` that
    /// passes without either, `stillWaiting` runs, as after 5 s, to say what the wait is for.
    /// Throws ``CoordinationCancelled`` once cancelled, even if `done` came too.
    func wait(for done: DispatchSemaphore, slice: DispatchTimeInterval = .seconds(5),
              stillWaiting: (Int) -> Void = { _ in }) throws(CoordinationCancelled) {
        let cancelledAlready = state.withLock { state in
            state.waiting = done
            return state.isCancelled
        }
        defer { state.withLock { $0.waiting = nil } }
        if cancelledAlready { throw CoordinationCancelled() }
        var slices = 0
        while done.wait(timeout: .now() + slice) == .timedOut {
            slices += 1
            stillWaiting(slices)
        }
        if isCancelled { throw CoordinationCancelled() }
    }
}

/// The coordination was cancelled before its accessor ran.
struct CoordinationCancelled: Error {}
