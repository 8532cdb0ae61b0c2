import AppexSystem
import Foundation
import Glibc

/// One end of the socket between appexd and its launcher: each message is a 4-byte
/// little-endian length and that many bytes, with its descriptors attached to its first byte:
/// a ``LaunchOrder`` in its own encoding (`LaunchOrder.encoded()`), every other message as
/// JSON. Both ends are Appex's own programs; the length is bounded all the same.
struct LauncherChannel: Sendable {
    let socket: FileDescriptor

    /// The longest message either end sends: an order's environment holds at most 64 KiB of
    /// type declarations (ExtensionLaunch), and JSON escapes some of it.
    static let longestMessage = 1 << 20

    func send(_ message: some Encodable, descriptors: [FileDescriptor] = []) throws(SystemError) {
        let body: Data
        do {
            body = try JSONEncoder().encode(message)
        } catch {
            throw SystemError("encode", subject: "a launcher message: \(error)", errno: EINVAL)
        }
        try send(body: [UInt8](body), descriptors: descriptors)
    }

    func send(_ order: LaunchOrder, descriptors: [FileDescriptor]) throws(SystemError) {
        try send(body: order.encoded(), descriptors: descriptors)
    }

    /// The next message and the descriptors that came with it; nil if the peer hung up
    /// between messages.
    func receive<Message: Decodable>(_ type: Message.Type) throws(SystemError) -> (Message, [FileDescriptor])? {
        guard let (body, descriptors) = try receiveBody() else { return nil }
        do {
            return (try JSONDecoder().decode(Message.self, from: Data(body)), descriptors)
        } catch {
            throw SystemError("decode", subject: "a launcher message: \(error)", errno: EBADMSG)
        }
    }

    /// The next order and the descriptors that came with it; nil if appexd hung up between orders.
    func receiveOrder() throws(SystemError) -> (LaunchOrder, [FileDescriptor])? {
        guard let (body, descriptors) = try receiveBody() else { return nil }
        return (try LaunchOrder(decoding: body), descriptors)
    }

    private func send(body: [UInt8], descriptors: [FileDescriptor]) throws(SystemError) {
        guard body.count <= Self.longestMessage else {
            throw SystemError("send", subject: "a launcher message of \(body.count) bytes, over \(Self.longestMessage)", errno: EMSGSIZE)
        }
        let frame = withUnsafeBytes(of: UInt32(body.count).littleEndian) { [UInt8]($0) } + body
        try frame.withUnsafeBytes { bytes in
            Result { () throws(SystemError) in try UnixSocket.send(socket, bytes, descriptors: descriptors) }
        }.get()
    }

    private func receiveBody() throws(SystemError) -> ([UInt8], [FileDescriptor])? {
        var descriptors: [FileDescriptor] = []
        guard let header = try read(4, descriptors: &descriptors, endIsFine: true) else { return nil }
        let length = Int(header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }.littleEndian)
        guard length <= Self.longestMessage else {
            throw SystemError("receive", subject: "a launcher message of \(length) bytes, over \(Self.longestMessage)", errno: EMSGSIZE)
        }
        guard let body = try read(length, descriptors: &descriptors, endIsFine: false) else { return nil }
        return (body, descriptors)
    }

    private func read(_ count: Int, descriptors: inout [FileDescriptor], endIsFine: Bool) throws(SystemError) -> [UInt8]? {
        var data = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let done = got
            let now = try data.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in
                    try UnixSocket.receive(socket, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), descriptors: &descriptors)
                }
            }.get()
            if now == 0 {
                if got == 0 && endIsFine { return nil }
                throw SystemError("receive", subject: "a launcher message cut short after \(got) of \(count) bytes", errno: ECONNRESET)
            }
            got += now
        }
        return data
    }
}
