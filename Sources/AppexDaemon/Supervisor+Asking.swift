import AppexIPC
import AppexLocking
import AppexWire

/// The questions a host puts to its user for an extension (a URL to confirm, files to pick):
/// one at a time for each extension process, so an extension can't stack them faster than
/// the user answers. A second, asked while one waits, is refused with the reason.
extension Supervisor {
    /// Marks the process of `session` as asking its user: nil if it may, or why it may not.
    func startAsking(for session: UInt64) -> String? {
        state.withLock { state in
            guard let record = state.processes[session] else { return "the extension has ended" }
            guard !record.isAskingTheUser else {
                return "\(record.label) already waits for the user to answer another question; ask again once that one is answered"
            }
            state.processes[session]?.isAskingTheUser = true
            return nil
        }
    }

    /// Puts the question `message` makes to the user through `host`, for the process of
    /// `session`, which ``startAsking(for:)`` has let ask; once the host has answered, or
    /// failed to, the process may ask again (before the answer reaches it).
    func ask(through host: ClientRecord, for session: UInt64, _ message: (UInt64) -> WireMessage) async throws(ConnectionError) -> IncomingMessage {
        defer { stopAsking(for: session) }
        return try await host.connection.call(message)
    }

    private func stopAsking(for session: UInt64) {
        state.withLock { $0.processes[session]?.isAskingTheUser = false }
    }
}
