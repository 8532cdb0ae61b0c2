import AppexLocking
import Foundation
import Glibc

/// Firefox's own remote protocol, Marionette, on a loopback TCP port: each message is its
/// length in decimal, a colon, and that many bytes of JSON. A command is
/// `[0, id, name, parameters]` and its answer `[1, id, error, result]`. It is what
/// geckodriver speaks to Firefox, spoken here directly, since Debian has no geckodriver.
public final class Marionette: Sendable {
    /// A JSON value from Firefox. Foundation's JSON objects are immutable once parsed.
    public struct Value: @unchecked Sendable {
        public let value: Any?
    }

    private let socket: Int32
    private let state = Locked((nextID: 1, buffer: [UInt8]()))

    /// Connects to Marionette on 127.0.0.1:`port` and reads its greeting.
    public init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let fd = socket
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard socket >= 0, connected == 0 else {
            Glibc.close(socket)
            throw DevToolsError("can't connect to Marionette on port \(port): \(String(cString: strerror(errno)))")
        }
        // A browser that stops answering fails the test that asked, rather than holding the run.
        var deadline = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &deadline, socklen_t(MemoryLayout<timeval>.size))
        let greeting = try receive()
        guard (greeting as? [String: Any])?["applicationType"] as? String == "gecko" else { throw DevToolsError("port \(port) is not Marionette: \(greeting)") }
    }

    deinit {
        Glibc.close(socket)
    }

    /// Sends command `name` and returns its result's `value` (or the whole result when it has
    /// none); throws Firefox's error. Commands wait for their answer one at a time.
    @discardableResult
    public func call(_ name: String, _ parameters: [String: any Sendable] = [:]) throws -> Value {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let body = try JSONSerialization.data(withJSONObject: [0, id, name, parameters] as [Any])
        let message = Array("\(body.count):".utf8) + Array(body)
        try message.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = Glibc.send(socket, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { throw DevToolsError("Marionette closed its connection") }
                sent += count
            }
        }
        while true {
            guard let answer = try receive() as? [Any], answer.count == 4, answer[1] as? Int == id else { continue }
            if let error = answer[2] as? [String: Any] {
                throw DevToolsError("\(name): \(error["error"] as? String ?? "error"): \(error["message"] as? String ?? "")")
            }
            let result = answer[3] as? [String: Any]
            return Value(value: result.map { $0["value"] ?? $0 } ?? answer[3])
        }
    }

    private func receive() throws -> Any {
        while true {
            if let message = try state.withLock({ state -> Any? in
                guard let colon = state.buffer.firstIndex(of: UInt8(ascii: ":")),
                      let length = Int(String(decoding: state.buffer[..<colon], as: UTF8.self)) else { return nil }
                guard state.buffer.count - colon - 1 >= length else { return nil }
                let body = Data(state.buffer[(colon + 1)..<(colon + 1 + length)])
                state.buffer.removeFirst(colon + 1 + length)
                return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
            }) {
                return message
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw DevToolsError(count < 0 && errno == EAGAIN ? "Firefox gave no answer within 60 s" : "Marionette closed its connection") }
            state.withLock { $0.buffer.append(contentsOf: chunk[..<count]) }
        }
    }
}
