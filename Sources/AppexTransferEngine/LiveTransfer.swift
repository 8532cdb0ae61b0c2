import AppexLocking
import AppexRegistry

/// A running task as it goes: its byte counts, when a byte last went either way, and why it
/// was stopped, if it was. The attempt updates it from whatever task moves the bytes; the
/// engine and the watch read it.
///
/// Byte counts reach the registry and the observer at most once per `progressInterval`, and
/// whenever ``record()`` is called.
final class LiveTransfer: Sendable {
    private struct State {
        var task: TransferTask
        var lastByte: ContinuousClock.Instant
        var lastRecorded: ContinuousClock.Instant
        var recorded = true
        var interruption: Interruption?
    }

    private let state: Locked<State>
    private let registry: Registry
    private let progressInterval: Duration
    private let observer: @Sendable (TransferTask) -> Void

    init(_ task: TransferTask, registry: Registry, progressInterval: Duration, observer: @escaping @Sendable (TransferTask) -> Void) {
        let now = ContinuousClock.now
        state = Locked(State(task: task, lastByte: now, lastRecorded: now))
        self.registry = registry
        self.progressInterval = progressInterval
        self.observer = observer
    }

    /// The task with its latest counts.
    var task: TransferTask { state.withLock { $0.task } }

    /// Why the attempt was stopped from outside, if it was.
    var interruption: Interruption? { state.withLock { $0.interruption } }

    /// How long since a byte last went either way.
    var idleTime: Duration { state.withLock { ContinuousClock.now - $0.lastByte } }

    /// Applies `change` to the counts, notes that bytes moved, and records them if the last
    /// record is older than the progress interval.
    func update(_ change: (inout TransferTask) -> Void) {
        let now = ContinuousClock.now
        let due: TransferTask? = state.withLock { state in
            change(&state.task)
            state.lastByte = now
            state.recorded = false
            guard now - state.lastRecorded >= progressInterval else { return nil }
            state.lastRecorded = now
            state.recorded = true
            return state.task
        }
        if let due { record(due) }
    }

    /// Records the counts now: at an attempt's end, and when what the registry keeps must
    /// survive a crash right after (a download's validator).
    func record() {
        let task = state.withLock { state in
            state.lastRecorded = ContinuousClock.now
            state.recorded = true
            return state.task
        }
        record(task)
    }

    /// Records the counts if they changed since the last record: for the bytes that came
    /// just before a pause.
    func recordIfChanged() {
        let task: TransferTask? = state.withLock { state in
            guard !state.recorded else { return nil }
            state.lastRecorded = ContinuousClock.now
            state.recorded = true
            return state.task
        }
        if let task { record(task) }
    }

    /// Stops the attempt for `reason`; the first reason given stays.
    func interrupt(_ reason: Interruption) {
        state.withLock { state in
            if state.interruption == nil { state.interruption = reason }
        }
    }

    private func record(_ task: TransferTask) {
        // A failed write loses a progress report, never a byte: the next one carries the counts.
        try? registry.recordTransferProgress(task.id, of: task)
        observer(task)
    }
}
