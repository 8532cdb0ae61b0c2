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

    /// Waits until a socket has an event, puts the tokens of those that have in `tokens` (at
    /// most 64), and returns how many. The caller keeps the buffer from one wait to the next.
    public func wait(into tokens: UnsafeMutableBufferPointer<UInt64>) throws(SystemError) -> Int {
        let count = appex_epoll_wait(descriptor.rawValue, tokens.baseAddress, Int32(clamping: tokens.count), -1)
        guard count >= 0 else { throw SystemError("epoll_wait") }
        return Int(count)
    }
}
