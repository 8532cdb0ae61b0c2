import AppexSystem
import Dispatch
import Glibc

/// Reads a connection on the process's event loop (``ConnectionReading/eventLoop``): a
/// dispatch read source, whose handler reads what has come without waiting and delivers it.
///
/// It runs on a serial queue of the connection's own, which targets libdispatch's overcommit
/// pool: a handler that blocks, such as appexd launching an extension for a request, takes a
/// worker of its own for that time instead of holding up other connections, and an idle
/// connection has none. Its state is touched only on that queue (the read handler, the frame
/// deadline, the end), which is why it can be `@unchecked Sendable`.
final class EventLoopReader: @unchecked Sendable {
    private let connection: Connection
    private let handler: @Sendable (IncomingMessage) -> Void
    private let onClose: @Sendable (ConnectionClosure) -> Void
    private let queue: DispatchQueue
    private let source: any DispatchSourceRead
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
        source = DispatchSource.makeReadSource(fileDescriptor: connection.socket.rawValue, queue: queue)
    }

    /// Starts watching the socket. The source keeps the reader until it is cancelled.
    func start() {
        source.setEventHandler { [self] in readAvailable() }
        // The socket stays open until the source lets go of it, which it has by now.
        source.setCancelHandler { [self] in
            connection.end(ending ?? .closedLocally, onClose: onClose)
            // The source's handlers hold the reader: letting go of them frees it.
            source.setEventHandler(handler: nil)
            source.setCancelHandler(handler: nil)
        }
        source.activate()
    }

    /// Reads once what the socket holds; the source calls again while more is there.
    private func readAvailable() {
        guard ending == nil else { return }
        let step = withUnsafeTemporaryAllocation(byteCount: Inbound.readSize, alignment: 1) { buffer in
            connection.read(into: buffer, inbound: &inbound, waiting: false, handler: handler)
        }
        switch step {
        case .nothingToRead: break
        case .read: watchDeadline()
        case .ended(let closure): end(closure)
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

    /// Stops reading: the descriptors of a frame not yet whole are closed now, and the
    /// source's cancel handler closes the socket once the source has let go of it.
    private func end(_ closure: ConnectionClosure) {
        ending = closure
        inbound = Inbound()
        source.cancel()
    }
}
