import AppexIPC
import AppexLocking
import AppexSystem
import AppexWire
import Foundation

/// Collects what callbacks deliver on other threads, for a test to await in order, and
/// remembers everything delivered, to check counts afterwards.
final class Inbox<Element: Sendable>: Sendable {
    private let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation
    private let log = Locked<[Element]>([])

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    func put(_ element: Element) {
        log.withLock { $0.append(element) }
        continuation.yield(element)
    }

    /// The next element delivered, in order.
    func next() async -> Element? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }

    /// Everything delivered so far.
    var delivered: [Element] { log.withLock { $0 } }
}

/// Runs blocking work on a thread of its own, so it never holds up the cooperative pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// The far end of a connection, driven by hand: it reads whole frames and writes raw bytes.
final class RawPeer: Sendable {
    let socket: FileDescriptor
    private let decoder = Locked(FrameDecoder())
    private let pending = Locked<[FileDescriptor]>([])

    init(_ socket: FileDescriptor) { self.socket = socket }

    /// Writes `bytes` as they are, with `descriptors` attached.
    func write(_ bytes: [UInt8], descriptors: [FileDescriptor] = []) throws {
        try bytes.withUnsafeBytes { try UnixSocket.send(socket, $0, descriptors: descriptors) }
    }

    /// Sends `message` framed, with `descriptors` in its slots.
    func send(_ message: WireMessage, descriptors: [FileDescriptor] = []) throws {
        try write(message.frameBytes(descriptorCount: descriptors.count), descriptors: descriptors)
    }

    /// The next whole message and its descriptors; nil at the end of the stream.
    func receive() async throws -> IncomingMessage? {
        try await onThread { try self.receiveBlocking() }
    }

    private func receiveBlocking() throws -> IncomingMessage? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let frame = try decoder.withLock({ try $0.nextFrame() }) {
                let descriptors = pending.withLock { pending in
                    defer { pending.removeFirst(frame.descriptorCount) }
                    return Array(pending.prefix(frame.descriptorCount))
                }
                return IncomingMessage(message: try WireMessage(frame), descriptors: descriptors)
            }
            var received: [FileDescriptor] = []
            let count = try buffer.withUnsafeMutableBytes { try UnixSocket.receive(socket, into: $0, descriptors: &received) }
            if count == 0 { return nil }
            pending.withLock { $0 += received }
            decoder.withLock { $0.receive(buffer[..<count], descriptors: received.count) }
        }
    }
}

/// A connection that serves calls the way a daemon would: Ping gets Pong, QueryExtensions
/// gets a QueryResult naming the query's point, except the point "fail", which gets a Failure.
func startServer(_ socket: FileDescriptor, name: String = "server") -> Connection {
    let server = Connection(socket: socket, name: name)
    server.start { incoming in
        switch incoming.message {
        case .ping(let call):
            try? server.send(.pong(call))
        case .queryExtensions(let query) where query.point == "fail":
            try? server.send(.failure(Failure(call: query.call, error: ErrorInfo(domain: "test", code: -7, message: "refused"))))
        case .queryExtensions(let query):
            let summary = ExtensionSummary(identifier: query.point, point: query.point, displayName: "", version: "",
                                           containingApp: "", bundlePath: "", isEnabled: true)
            try? server.send(.queryResult(QueryResult(call: query.call, extensions: [summary])))
        default:
            break
        }
    }
    return server
}

/// A connection whose every closure lands in the returned inbox.
func startClient(_ socket: FileDescriptor, handler: @escaping @Sendable (IncomingMessage) -> Void = { _ in })
    -> (Connection, Inbox<ConnectionClosure>) {
    let closures = Inbox<ConnectionClosure>()
    let client = Connection(socket: socket, name: "client")
    client.start(handler: handler) { closures.put($0) }
    return (client, closures)
}

/// The point a QueryResult names: what ``startServer(_:name:)`` echoes back.
func answeredPoint(_ incoming: IncomingMessage) -> String? {
    guard case .queryResult(let result) = incoming.message else { return nil }
    return result.extensions.first?.point
}

/// A sealed memory file holding `text`, to pass as a descriptor.
func memoryFile(_ text: String) throws -> FileDescriptor {
    try Array(text.utf8).withUnsafeBytes { try MemoryFile.sealed(name: "appex-test", bytes: $0) }
}

/// The text of a memory file or any readable file.
func contents(of file: FileDescriptor) throws -> String {
    String(decoding: try file.read(upTo: 4096, at: 0), as: UTF8.self)
}
