import AppexLocking
import AppexSystem
import Foundation
import Synchronization

/// The process's one thread that waits for the sockets of connections read on the event loop
/// (``ConnectionReading/eventLoop``), and hands each that has input, or whose peer hung up,
/// to its reader's queue.
///
/// Each socket is watched for one event at a time (``Epoll``): its reader reads until nothing
/// is left and then asks to be woken again, so the loop never wakes twice for the same bytes
/// and a hang-up is never missed. libdispatch's read sources, used before, stop watching a
/// socket once they see its hang-up, without calling the handler when the bytes and the
/// hang-up came together before the source was watching: a client that wrote its `Hello`
/// and closed at once was never read, and its socket never closed.
final class EventLoop: Sendable {
    /// What runs when a watched socket has an event: it must only hand the work on.
    typealias Ready = @Sendable () -> Void

    /// The loop, started with its first socket.
    static let shared: EventLoop = {
        do {
            return try EventLoop()
        } catch {
            fatalError("appex: the event loop could not be made: \(error)")
        }
    }()

    private let epoll: Epoll
    private let watched = Locked<[UInt64: Ready]>([:])
    private let nextToken = Atomic<UInt64>(1)

    private init() throws(SystemError) {
        epoll = try Epoll()
        let thread = Thread { [self] in run() }
        thread.name = "appex-event-loop"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// Starts watching `socket`; `ready` runs on the loop's thread at its first event.
    /// Returns the token that names it to ``watchAgain(_:token:)`` and ``forget(_:token:)``.
    func watch(_ socket: FileDescriptor, ready: @escaping Ready) throws(SystemError) -> UInt64 {
        let token = nextToken.add(1, ordering: .relaxed).oldValue
        watched.withLock { $0[token] = ready }
        do throws(SystemError) {
            try epoll.watchOnce(socket, token: token)
        } catch {
            watched.withLock { _ = $0.removeValue(forKey: token) }
            throw error
        }
        return token
    }

    /// Watches `socket` for its next event, once its reader has read all there was.
    func watchAgain(_ socket: FileDescriptor, token: UInt64) throws(SystemError) {
        try epoll.watchAgain(socket, token: token)
    }

    /// Stops watching `socket`, before it is closed. An event already taken from the kernel
    /// for it finds no one, and is dropped.
    func forget(_ socket: FileDescriptor, token: UInt64) {
        epoll.forget(socket)
        watched.withLock { _ = $0.removeValue(forKey: token) }
    }

    private func run() {
        // The loop runs as long as the process, and its buffer with it.
        let tokens = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 64)
        while true {
            let count: Int
            do throws(SystemError) {
                count = try epoll.wait(into: tokens)
            } catch {
                fatalError("appex: the event loop's epoll_wait failed: \(error)")
            }
            let ready = watched.withLock { watched in tokens[..<count].compactMap { watched[$0] } }
            for handOn in ready { handOn() }
        }
    }
}
