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
    /// else once the host's `RequestBegun` for it has come (``begun(_:for:)``), or with false
    /// once ``requestBegunGrace`` has passed. One such wait at a time for each process: a
    /// second, while one waits, gets false at once, so an extension naming made-up requests
    /// costs appexd one wait. If the process ends first, `body` is never run: no one is left
    /// to answer.
    func whenRunning(_ requestID: UUID, in session: UInt64, _ body: @escaping @Sendable (_ isRunning: Bool) -> Void) {
        let awaited = AwaitedRequest(requestID: requestID, resume: body)
        let known = state.withLock { state -> Bool? in
            guard let record = state.processes[session] else { return false }
            if record.requests[requestID] != nil { return true }
            guard record.awaitedRequest == nil else { return false }
            state.processes[session]?.awaitedRequest = awaited
            return nil
        }
        if let known { return body(known) }
        Task {
            try? await Task.sleep(for: Self.requestBegunGrace)
            let expired = state.withLock { state -> AwaitedRequest? in
                guard state.processes[session]?.awaitedRequest?.token == awaited.token else { return nil }
                return state.processes[session]?.awaitedRequest.take()
            }
            expired?.resume(false)
        }
    }
}

/// A request a process named before appexd heard of it, and what runs once it is known to be
/// running or the wait ends (``Supervisor/whenRunning(_:in:_:)``).
struct AwaitedRequest: Sendable {
    let requestID: UUID
    /// Tells this wait from a later one for the same request.
    let token = UUID()
    let resume: @Sendable (_ isRunning: Bool) -> Void
}
