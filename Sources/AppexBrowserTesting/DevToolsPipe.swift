import AppexLocking
public import AppexSystem
import Foundation
import Glibc

/// The Chrome DevTools protocol over the pipe Chromium opens with `--remote-debugging-pipe`:
/// JSON messages, each ended by a NUL byte, written to the browser's descriptor 3 and read
/// from its descriptor 4. No WebSocket and no port: only the process that started the
/// browser can drive it.
///
/// ```swift
/// let reply = try await pipe.call("Target.createTarget", ["url": "about:blank"])
/// ```
public final class DevToolsPipe: Sendable {
    /// A JSON object from the browser. Foundation's JSON objects are immutable once parsed.
    public struct Object: @unchecked Sendable {
        public let fields: [String: Any]

        public subscript(key: String) -> Any? { fields[key] }
    }

    private struct State {
        var nextID = 1
        var pending: [Int: CheckedContinuation<Object, any Error>] = [:]
        var closed: String?
        /// The last events, for a failure's message.
        var events: [String] = []
    }

    private let toBrowser: FileDescriptor
    private let fromBrowser: FileDescriptor
    private let state = Locked(State())
    private let writing = Locked(())

    /// Starts reading the browser's messages on a thread of its own.
    public init(toBrowser: FileDescriptor, fromBrowser: FileDescriptor) {
        self.toBrowser = toBrowser
        self.fromBrowser = fromBrowser
        let thread = Thread { [self] in read() }
        thread.name = "devtools pipe"
        thread.start()
    }

    /// How long a command waits for its answer before it throws: a browser that stops
    /// answering fails the test that asked, rather than holding the whole run.
    public static let answerDeadline = Duration.seconds(60)

    /// Sends `method` with `parameters`, to the target session `session` if given, and
    /// returns the result; throws the browser's error, or a timeout's after `deadline`.
    public func call(_ method: String, _ parameters: [String: any Sendable] = [:], session: String? = nil,
                     deadline: Duration = answerDeadline) async throws -> Object {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let deadline = Task { [weak self] in
            try await Task.sleep(for: deadline)
            self?.state.withLock { $0.pending.removeValue(forKey: id) }?
                .resume(throwing: DevToolsError("\(method) got no answer from the browser within \(deadline)"))
        }
        defer { deadline.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let open = state.withLock { state -> Bool in
                guard state.closed == nil else { return false }
                state.pending[id] = continuation
                return true
            }
            guard open else { return continuation.resume(throwing: DevToolsError("the browser has gone: \(state.withLock { $0.closed ?? "" })")) }
            var message: [String: Any] = ["id": id, "method": method, "params": parameters]
            if let session { message["sessionId"] = session }
            do {
                var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
                bytes.append(0)
                try writing.withLock { _ in try toBrowser.write(bytes) }
            } catch {
                state.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: DevToolsError("can't send \(method): \(error)"))
            }
        }
    }

    /// The last events the browser sent, newest last.
    public var recentEvents: [String] { state.withLock { $0.events } }

    private func read() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fromBrowser.rawValue, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[..<count])
            while let end = buffer.firstIndex(of: 0) {
                received(Array(buffer[..<end]))
                buffer.removeFirst(end + 1)
            }
        }
        let waiting = state.withLock { state in
            state.closed = "the pipe closed"
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for continuation in waiting { continuation.resume(throwing: DevToolsError("the browser closed its DevTools pipe")) }
    }

    private func received(_ bytes: [UInt8]) {
        guard let message = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else { return }
        guard let id = message["id"] as? Int else {
            let text = String(decoding: bytes.prefix(400), as: UTF8.self)
            state.withLock { state in
                state.events.append(text)
                if state.events.count > 40 { state.events.removeFirst() }
            }
            return
        }
        guard let continuation = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
        if let error = message["error"] as? [String: Any] {
            continuation.resume(throwing: DevToolsError("\(error["message"] as? String ?? "error") \(error["data"] as? String ?? "")"))
        } else {
            continuation.resume(returning: Object(fields: message["result"] as? [String: Any] ?? [:]))
        }
    }
}

/// What went wrong driving the browser.
public struct DevToolsError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }
}
