import CAppexSystem
import Glibc

/// An epoll instance that watches sockets one event at a time: each reports, with a token of
/// the caller's, that it has input or its peer hung up, and is then not watched again until
/// ``watchAgain(_:token:)``, so that one reader at a time handles it.
public final class Epoll: Sendable {
    private let descriptor: FileDescriptor

    public init() throws(SystemError) {
        let raw = appex_epoll_create()
        guard raw >= 0 else { throw SystemError("epoll_create1") }
        descriptor = FileDescriptor(owning: raw)
    }

    /// Starts watching `socket` for one event, reported as `token`.
    public func watchOnce(_ socket: FileDescriptor, token: UInt64) throws(SystemError) {
        guard appex_epoll_watch_once(descriptor.rawValue, socket.rawValue, token, 0) == 0 else {
            throw SystemError("epoll_ctl", subject: "add descriptor \(socket.rawValue)")
        }
    }

    /// Watches `socket` for its next event, after the last was handled.
    public func watchAgain(_ socket: FileDescriptor, token: UInt64) throws(SystemError) {
        guard appex_epoll_watch_once(descriptor.rawValue, socket.rawValue, token, 1) == 0 else {
            throw SystemError("epoll_ctl", subject: "modify descriptor \(socket.rawValue)")
        }
    }

    /// Stops watching `socket`; call it before the socket is closed.
    public func forget(_ socket: FileDescriptor) {
        _ = appex_epoll_forget(descriptor.rawValue, socket.rawValue)
    }

    /// Waits until a socket has an event, and returns the tokens of those that have (up to 64).
    public func wait() throws(SystemError) -> [UInt64] {
        var tokens = [UInt64](repeating: 0, count: 64)
        let count = tokens.withUnsafeMutableBufferPointer { appex_epoll_wait(descriptor.rawValue, $0.baseAddress, Int32($0.count), -1) }
        guard count >= 0 else { throw SystemError("epoll_wait") }
        return Array(tokens.prefix(Int(count)))
    }
}
