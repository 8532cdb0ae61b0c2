import AppexSystem
import Dispatch

/// Reads a connection on the process's event loop (``ConnectionReading/eventLoop``): woken by
/// the ``EventLoop`` when the socket has input or its peer hung up, it reads without waiting
/// until nothing is left, delivers each whole frame, and asks to be woken again.
///
/// It runs on a serial queue of the connection's own, which targets libdispatch's overcommit
/// pool: a handler that blocks, such as appexd launching an extension for a request, takes a
/// worker of its own for that time instead of holding up other connections, and an idle
/// connection has none. Its state is touched only on that queue (the reads, the frame
/// deadline, the end), which is why it can be `@unchecked Sendable`.
final class EventLoopReader: @unchecked Sendable {
    private let connection: Connection
    private let handler: @Sendable (IncomingMessage) -> Void
    private let onClose: @Sendable (ConnectionClosure) -> Void
    private let queue: DispatchQueue
    /// What names the socket to the event loop, once it watches it.
    private var token: UInt64?
    private var inbound = Inbound()
    /// The start of the frame whose deadline is being watched, so that one frame read in
    /// many pieces is watched once.
    private var watchedFrame: ContinuousClock.Instant?
    private var ending: ConnectionClosure?

    init(connection: Connection, handler: @escaping @Sendable (IncomingMessage) -> Void,
         onClose: @escaping @Sendable (ConnectionClosure) -> Void) {
        self.connection = connection
        self.handler = handler
        self.onClose = onClose
        queue = DispatchQueue(label: "appex-\(connection.name)")
    }

    /// Starts watching the socket, on the reader's queue, so that its first wake-up finds
    /// the token. The event loop keeps the reader until the connection ends.
    func start() {
        queue.async { [self] in
            do throws(SystemError) {
                token = try EventLoop.shared.watch(connection.socket) { [self] in
                    queue.async { self.readAvailable() }
                }
            } catch {
                end(connection.closure ?? .systemError(error))
            }
        }
    }

    /// Reads what the socket holds, to the end, then asks the event loop to wake the reader
    /// at the next bytes or the hang-up. After ``readsPerTurn`` reads it lets the queue's
    /// other work (the frame deadline) run, and goes on after it.
    private func readAvailable() {
        for _ in 0..<Self.readsPerTurn {
            guard ending == nil else { return }
            let step = withUnsafeTemporaryAllocation(byteCount: Inbound.readSize, alignment: 1) { buffer in
                connection.read(into: buffer, inbound: &inbound, waiting: false, handler: handler)
            }
            switch step {
            case .nothingToRead: return watchAgain()
            case .read: watchDeadline()
            case .ended(let closure): return end(closure)
            }
        }
        queue.async { [self] in readAvailable() }
    }

    /// How many reads (of up to 64 KiB each) one turn makes before other work on the queue runs.
    static let readsPerTurn = 16

    private func watchAgain() {
        guard let token else { return }
        do throws(SystemError) {
            try EventLoop.shared.watchAgain(connection.socket, token: token)
        } catch {
            end(connection.closure ?? .systemError(error))
        }
    }

    /// An untrusted peer's frame must be whole within its deadline: it is looked at again then.
    private func watchDeadline() {
        guard let frameDeadline = connection.untrusted?.frameDeadline, let frameBegan = inbound.frameBegan,
              frameBegan != watchedFrame else { return }
        watchedFrame = frameBegan
        let left = (frameBegan + frameDeadline - .now).components
        let nanoseconds = max(0, left.seconds * 1_000_000_000 + left.attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { [self] in
            guard ending == nil, inbound.frameBegan == frameBegan else { return }
            end(connection.incompleteFrame(inbound, frameDeadline))
        }
    }

    /// Stops reading: the event loop forgets the socket, the descriptors of a frame not yet
    /// whole are closed, and the connection ends (its socket closed, `onClose` run).
    private func end(_ closure: ConnectionClosure) {
        guard ending == nil else { return }
        ending = closure
        inbound = Inbound()
        if let token { EventLoop.shared.forget(connection.socket, token: token) }
        connection.end(closure, onClose: onClose)
    }
}
