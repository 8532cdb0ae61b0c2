import AppexIPC
import AppexItems
import AppexSession
import AppexSystem
import AppexWire
import Foundation
import Synchronization

/// The host's end of one session with an extension process: its connection, and the
/// providers of the requests sent on it, which it serves as the extension loads them.
final class HostSession: Sendable {
    let id: UInt64
    /// The extension it runs, as the host named it.
    let extensionIdentifier: String
    /// The extension's process.
    let pid: Int32
    let connection: Connection
    let providers = ProviderServer()
    /// Whether the extension has sent a point message, which shows it speaks protocol
    /// version 5: only then, or once its `Welcome` agreed to version 5 or later, may the
    /// host send one (docs/wire.md, "Point messages").
    private let heardPointMessage = Atomic(false)
    /// The version the extension's `Welcome` agreed to; 0 until it arrives.
    private let agreedVersion = Atomic<UInt32>(0)

    var speaksPointMessages: Bool {
        heardPointMessage.load(ordering: .acquiring) || agreedVersion.load(ordering: .acquiring) >= WireVersion.pointMessages
    }

    init(id: UInt64, socket: FileDescriptor, extensionIdentifier: String, pid: Int32) {
        self.id = id
        self.extensionIdentifier = extensionIdentifier
        self.pid = pid
        connection = Connection(socket: socket, name: "\(extensionIdentifier) session \(id)")
    }

    /// Whether the session runs the extension `identifier` (compared as appexd does,
    /// ignoring case).
    func runs(_ identifier: String) -> Bool {
        extensionIdentifier.lowercased() == identifier.lowercased()
    }

    /// Says `Hello`, which must be the session's first frame, before any request is sent.
    func greet() {
        try? connection.send(.hello(Hello(role: .sessionHost, name: ProcessInfo.processInfo.processName)))
    }

    /// Starts reading; `handle` gets what the session doesn't handle itself, and `closed`
    /// runs once when it ends.
    func start(handle: @escaping @Sendable (IncomingMessage) -> Void, closed: @escaping @Sendable (ConnectionClosure) -> Void) {
        connection.start { [self] incoming in
            switch incoming.message {
            case .welcome(let welcome):
                agreedVersion.store(welcome.version, ordering: .releasing)
            case .pointMessage:
                heardPointMessage.store(true, ordering: .releasing)
                handle(incoming)
            case .loadRequest(let load):
                providers.serve(load) { [connection] result, descriptors in
                    try? connection.send(.loadResult(result), descriptors: descriptors)
                }
            default:
                handle(incoming)
            }
        } onClose: { closure in
            closed(closure)
        }
    }

    /// Sends `requestID` with `items`, whose providers stay here to serve loads.
    func send(_ requestID: UUID, items: [NSExtensionItem]) throws(ConnectionError) {
        try connection.send(.extensionRequest(RequestItems(requestID: requestID, items: providers.describe(items, for: requestID))))
    }

    /// Tells the extension its answer to `requestID` arrived, and forgets the request's providers.
    func acknowledge(_ requestID: UUID) {
        try? connection.send(.requestAcknowledged(RequestReference(requestID)))
        providers.release(requestID)
    }
}
