import AppexIPC
import AppexLocking
import AppexSystem
import Dispatch
import Synchronization

/// Admitting connections within ``ClientLimits``: a connection must greet appexd in time,
/// silent ones can't fill appexd up, and no process may hold too many.
extension Supervisor {
    /// Adds `client` if the limits allow it, and gives it until the handshake deadline to say
    /// `Hello`. Returns why it was refused, or nil if it was admitted. To make room, the
    /// connection that has waited longest for its handshake, having sent nothing, may be
    /// closed, and told why.
    func admit(_ client: ClientRecord) -> String? {
        let limits = configuration.clientLimits
        let pid = client.credentials.processID
        var silentCensus = ""
        let (refusal, pushedOut) = state.withLock { state -> (String?, ClientRecord?) in
            let held = state.clients.values.count { $0.credentials.processID == pid }
            guard held < limits.perProcess else {
                return ("process \(pid) already holds \(held) connections to appexd, the most one process may", nil)
            }
            // Only the silent count: a connection whose Hello has come, but has not been read
            // or answered yet (a burst of clients can outrun the event loop), waits for appexd.
            let silent = state.clients.values.filter { $0.version == 0 && !$0.connection.peerHasSentAnything }
            var pushedOut: ClientRecord?
            if silent.count >= limits.waitingForHandshake, let longest = silent.min(by: { $0.id < $1.id }) {
                state.clients[longest.id] = nil
                pushedOut = longest
                silentCensus = Self.census(silent)
            }
            state.clients[client.id] = client
            return (nil, pushedOut)
        }
        if let pushedOut {
            Self.refuse(pushedOut, "it had sent nothing while \(limits.waitingForHandshake) newer connections waited for their handshake")
            DaemonLog.write(line: "appexd: pushed out \(pushedOut.name) (pid \(pushedOut.credentials.processID), client \(pushedOut.id)) "
                            + "to admit client \(client.id): \(silentCensus)")
        }
        guard refusal == nil else { return refusal }
        let deadline = Int(limits.handshakeDeadline.milliseconds)
        // Only the client's id waits for the deadline: the record holds the connection and a
        // pidfd of its process, which must go when the client does, not seconds later.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(deadline)) { [self, id = client.id] in
            let silent = state.withLock { state -> ClientRecord? in
                // One that has sent something has done its part: its Hello waits to be read,
                // and if it is not a whole Hello, the frame deadline or the handshake closes it.
                guard let record = state.clients[id], record.version == 0, !record.connection.peerHasSentAnything else { return nil }
                state.clients[id] = nil
                return record
            }
            if let silent { Self.refuse(silent, "it sent no Hello within \(Double(deadline) / 1000) s of connecting") }
        }
        return nil
    }

    /// Which processes the silent connections came from, for the log: a push-out is rare,
    /// and whoever reads it wants to know who crowded the handshake.
    private static func census(_ silent: [ClientRecord]) -> String {
        let byProcess = Dictionary(grouping: silent, by: \.credentials.processID)
        let ids = silent.map(\.id).sorted()
        return "\(silent.count) silent connections (clients \(ids.first ?? 0)…\(ids.last ?? 0)) from "
            + byProcess.sorted { $0.key < $1.key }.map { "pid \($0.key) × \($0.value.count)" }.joined(separator: ", ")
            + "; \(silent.count { $0.connection.closure != nil }) of them closed"
    }

    /// Tells a connection over a limit which, logs it, and closes it.
    static func refuse(_ client: ClientRecord, _ reason: String) {
        client.refuse(code: 13, "appexd closed this connection: \(reason)",
                      recovery: "Send Hello as soon as you connect, and share one connection within a process.")
    }
}
