import AppexIPC
import AppexSystem
import AppexWire
import Foundation

/// A connected host or CLI, identified by the kernel.
struct ClientRecord: Sendable {
    let id: UInt64
    let connection: Connection
    let credentials: PeerCredentials
    /// The peer process as the kernel took it at connect time (SO_PEERPIDFD), so its pid
    /// can't be mistaken for a later process's; nil if it had already gone.
    let process: ProcessDescriptor?
    /// The program's name, from /proc/PID/comm, falling back to what it said in Hello.
    var name: String
    /// The protocol version agreed in the handshake; 0 until then.
    var version: UInt32 = 0
}

extension ClientRecord {
    /// Tells the client why appexd closes its connection (a `Failure` of `code` in the
    /// runtime domain), logs it, and closes the connection.
    func refuse(code: Int, _ reason: String, recovery: String = "") {
        DaemonLog.write(line: "appexd: refused \(name) (pid \(credentials.processID)): \(reason)")
        try? connection.send(.failure(Failure(error: AppexErrorDomain.runtimeError(code, reason, recovery: recovery))))
        connection.close()
    }
}
