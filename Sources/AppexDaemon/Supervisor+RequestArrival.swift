import AppexLocking
import Foundation

/// A request the host began straight on its session reaches the extension by the session, and
/// appexd by the host's `RequestBegun`, on another socket. Nothing orders the two, so an
/// extension can ask something for that request (a URL to open, files to pick) before
/// appexd has heard of it. appexd then waits a moment for the `RequestBegun` before it says
/// the request isn't running (docs/runtime.md, "A request on a live process goes straight to it").
extension Supervisor {
    /// How long appexd waits for the `RequestBegun` of a request an extension names: as long
    /// as for a host to close an idle session, since it may sit unread while the machine is
    /// loaded (docs/runtime.md).
    static let requestBegunGrace: Duration = .seconds(10)

    /// Runs `body` with whether the process of `session` runs `requestID`: at once if it does,
    /// else once the host's `RequestBegun` for it has come, or with false once
    /// ``requestBegunGrace`` has passed or the process has ended. One such wait at a time for
    /// each process: a second, while one waits, gets false at once, so an extension naming
    /// made-up requests costs appexd one wait.
    func whenRunning(_ requestID: UUID, in session: UInt64, _ body: @escaping @Sendable (_ isRunning: Bool) -> Void) {
        if runs(requestID, in: session) { return body(true) }
        let mayWait = state.withLock { state -> Bool in
            guard let record = state.processes[session], !record.isAwaitingARequest else { return false }
            state.processes[session]?.isAwaitingARequest = true
            return true
        }
        guard mayWait else { return body(false) }
        Task {
            let giveUp = ContinuousClock.now + Self.requestBegunGrace
            var isRunning = false
            while !isRunning, ContinuousClock.now < giveUp, state.withLock({ $0.processes[session] != nil }) {
                try? await Task.sleep(for: .milliseconds(5))
                isRunning = runs(requestID, in: session)
            }
            state.withLock { $0.processes[session]?.isAwaitingARequest = false }
            body(isRunning)
        }
    }

    private func runs(_ requestID: UUID, in session: UInt64) -> Bool {
        state.withLock { $0.processes[session]?.requests[requestID] != nil }
    }
}
