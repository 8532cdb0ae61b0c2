import AppexCore
import AppexIPC
import AppexSystem
import AppexWire
import Foundation
import Glibc
import Synchronization

/// This process's own connection to appexd, greeted, for the background-session commands:
/// it makes calls and keeps what appexd pushes (updates and events) in order.
final class DaemonLink: Sendable {
    private let connection: Connection
    private let pushed = Mutex<[WireMessage]>([])
    private let arrived = DispatchSemaphore(value: 0)

    init() throws {
        connection = Connection(socket: try DaemonConnector.connect(home: .current, startIfNeeded: false), name: "appexd")
        connection.start { [self] incoming in
            pushed.withLock { $0.append(incoming.message) }
            arrived.signal()
        } onClose: { [arrived] _ in
            arrived.signal()
        }
        try connection.send(.hello(Hello(role: .host, name: "helper")))
        guard case .welcome? = next(within: 10) else { throw DaemonCallError("appexd did not answer the handshake") }
    }

    /// The next message appexd pushed, or nil if none came within `seconds`.
    func next(within seconds: Double) -> WireMessage? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return pushed.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// The answer to a call; a `Failure` is returned, not thrown.
    func call(_ message: (UInt64) -> WireMessage, descriptors: [FileDescriptor] = []) throws -> WireMessage {
        do {
            return try connection.callWaiting(message, descriptors: descriptors, timeout: .seconds(10)).message
        } catch .failed(let error) {
            return .failure(Failure(error: error))
        }
    }

    func send(_ message: WireMessage) throws {
        try connection.send(message)
    }

    /// Attaches to `session`, naming `group`; prints "refused …" and exits 1 if appexd says no.
    func attach(_ session: String, group: String) throws {
        let answer = try call { .transferAttach(TransferAttach(call: $0, sessionIdentifier: session, groupIdentifier: group)) }
        if case .failure(let failure) = answer {
            say("refused \(failure.error.domain) \(failure.error.code): \(failure.error.message)")
            exit(1)
        }
    }
}

/// `transfer-attach SESSION GROUP`: attaches, prints "attached", and stays attached until
/// its standard input closes.
func transferAttach(_ session: String, _ group: String) throws {
    let link = try DaemonLink()
    try link.attach(session, group: group)
    say("attached")
    _ = FileHandle.standardInput.readDataToEndOfFile()
}

/// `transfer-upload SESSION GROUP URL FILE [wait|cancel]` and `transfer-download SESSION GROUP
/// URL [wait|cancel]`: attaches, makes the task (an upload of FILE, its descriptor sent as it
/// is, or a download of URL), prints "created N" or why not, and exits at once: the task goes
/// on without it. With `wait`, it stays attached and prints the events as `transfer-events`
/// does; with `cancel`, it cancels the task first.
func transferTask(_ kind: String, _ session: String, _ group: String, _ url: String, file: String?, then next: String?) throws {
    let link = try DaemonLink()
    try link.attach(session, group: group)
    let body = try file.map { path in try FileDescriptor.open(path) }
    let answer = try link.call({ .transferCreate(TransferCreate(call: $0, sessionIdentifier: session, kind: kind, url: url, method: kind == "upload" ? "PUT" : "")) },
                               descriptors: body.map { [$0] } ?? [])
    switch answer {
    case .transferTaskResult(let result):
        say("created \(result.task.taskIdentifier)")
        if next == "cancel" {
            let cancelled = try link.call { .transferCancel(TransferCancel(call: $0, sessionIdentifier: session, taskIdentifier: result.task.taskIdentifier)) }
            if case .transferTaskResult(let now) = cancelled { say("cancel: \(now.task.state)") }
        }
    case .failure(let failure):
        say("refused \(failure.error.domain) \(failure.error.code): \(failure.error.message)")
        exit(1)
    default:
        say("unexpected \(answer.name)")
    }
    if next == "wait" || next == "cancel" { try printEvents(link, session) }
}

/// `transfer-events SESSION GROUP`: attaches and prints each event appexd delivers, as
/// "event KIND TASK STATE STATUS [backlog]", until one says a task completed; then
/// acknowledges them all.
func transferEvents(_ session: String, _ group: String) throws {
    let link = try DaemonLink()
    try link.attach(session, group: group)
    try printEvents(link, session)
}

func printEvents(_ link: DaemonLink, _ session: String) throws {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        guard case .transferEvents(let events)? = link.next(within: 1) else { continue }
        for event in events.events {
            say("event \(event.kind) \(event.task.taskIdentifier) \(event.task.state) \(event.task.statusCode)\(events.backlog ? " backlog" : "")"
                + (event.location.isEmpty ? "" : " at \(event.location) holding \((try? Data(contentsOf: URL(fileURLWithPath: event.location)).count) ?? -1) bytes"))
        }
        if let last = events.events.last(where: { $0.kind == "completed" }) {
            try link.send(.transferAcknowledge(TransferAcknowledge(sessionIdentifier: session, sequence: last.sequence)))
            // A call after it, so the acknowledgement has been handled when this process exits.
            _ = try link.call { .ping(Call($0)) }
            return
        }
    }
    say("no completion within 60 s")
    exit(1)
}
