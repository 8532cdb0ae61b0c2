public import AppexSystem
import Foundation
import Synchronization

/// A Unix socket that accepts connections on its own thread and hands each one over.
public final class Listener: Sendable {
    /// Where it listens.
    public let path: String
    private let socket: FileDescriptor
    /// Whether the socket file is ours to remove when we stop.
    private let ownsPath: Bool
    private let stopped = Atomic(false)
    /// Whether ``start(_:)`` made the accepting thread, which signals `done` as it ends.
    private let started = Atomic(false)
    private let done = DispatchSemaphore(value: 0)

    /// Listens at `path`, which must not exist.
    public init(path: String) throws(SystemError) {
        self.path = path
        self.socket = try UnixSocket.listen(at: path)
        self.ownsPath = true
    }

    /// Adopts a socket already listening at `path`, such as one systemd passed in
    /// (socket activation). Its file stays when the listener stops: it isn't ours.
    public init(adopting socket: FileDescriptor, path: String) {
        self.path = path
        self.socket = socket
        self.ownsPath = false
    }

    /// Starts accepting; `accept` gets each new socket on the listener's thread.
    public func start(_ accept: @escaping @Sendable (FileDescriptor) -> Void) {
        started.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            defer { done.signal() }
            while !stopped.load(ordering: .acquiring) {
                do throws(SystemError) {
                    let connection = try UnixSocket.accept(socket)
                    if stopped.load(ordering: .acquiring) {
                        connection.close()
                        return
                    }
                    accept(connection)
                } catch {
                    if stopped.load(ordering: .acquiring) { return }
                    if error.errno == EMFILE || error.errno == ENFILE {
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                }
            }
        }
        thread.name = "appex-listener"
        thread.start()
    }

    /// Stops accepting, waits for the thread, and removes the socket file.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        UnixSocket.shutdown(socket)
        // Only a started listener has a thread to wait for; waiting without one hung forever.
        if started.load(ordering: .acquiring) { done.wait() }
        socket.close()
        if ownsPath { unlink(path) }
    }
}
