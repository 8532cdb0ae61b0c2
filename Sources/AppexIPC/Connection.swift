import AppexLocking
public import AppexSystem
public import AppexWire
public import Foundation
import Synchronization

/// A framed, message-level connection over a Unix stream socket, with descriptor passing.
///
/// Sending is synchronous and safe from any thread. Receiving happens on a reader thread of
/// the connection's own, or on the process's event loop (``ConnectionReading``); either
/// decodes each frame and calls the handler in order. A frame that can't be decoded closes
/// this connection, and only this one, with the ``ConnectionClosure`` saying what was wrong.
///
/// ```swift
/// let connection = Connection(socket: socket, name: "host")
/// connection.start { incoming in print(incoming.message.name) } onClose: { print($0) }
/// try connection.send(.ping(Call(1)))
/// ```
public final class Connection: Sendable, CustomStringConvertible {
    /// For logs: what the other end is.
    public let name: String
    /// The socket. Owned by the connection, closed when the reader ends.
    let socket: FileDescriptor
    /// What the connection guards against, if its peer is not trusted.
    let untrusted: UntrustedPeer?
    /// Held by each write to the socket, with the frames that wait to go out with the next one.
    private let sendLock = Locked(Outbox())
    private let state = Locked(State())
    private let calls = PendingCalls()
    /// Whether anything has been read from the peer.
    private let hasRead = Atomic(false)

    private struct State {
        var started = false
        var closure: ConnectionClosure?
    }

    /// Wraps a connected socket. Nothing is read until ``start(handler:onClose:)``.
    /// A peer that is `untrusted` has a deadline for each frame it begins, and is told why
    /// its bytes closed the connection.
    public init(socket: FileDescriptor, name: String, untrusted: UntrustedPeer? = nil) {
        self.socket = socket
        self.name = name
        self.untrusted = untrusted
    }

    /// The kernel's record of the peer.
    public func peerCredentials() throws(SystemError) -> PeerCredentials {
        try PeerCredentials(of: socket)
    }

    /// A pidfd for the peer, taken by the kernel at connect time.
    public func peerProcess() throws(SystemError) -> ProcessDescriptor {
        try ProcessDescriptor(peerOf: socket)
    }

    /// Why the connection closed, once it has.
    public var closure: ConnectionClosure? { state.withLock { $0.closure } }

    /// Whether the connection is closed here, or the peer has closed its end, even if this
    /// side's reader hasn't come to the end of what it sent yet: a process that exited is
    /// gone at once, whatever this side still has to read.
    public var peerHasHungUp: Bool {
        // Under the send lock, as a send: the closure is set before the socket is closed
        // under it, so a connection with no closure still has its own descriptor here.
        sendLock.withLock { _ in closure != nil || socket.peerHasHungUp }
    }

    /// Whether the peer has sent anything yet: bytes this side has read, or bytes (or its
    /// hang-up) waiting to be read. Never waits: while a send holds the socket, only what
    /// was read counts.
    public var peerHasSentAnything: Bool {
        if hasRead.load(ordering: .acquiring) { return true }
        // Under the send lock, as ``peerHasHungUp``, so the descriptor is still this connection's.
        return sendLock.withLockIfAvailable { _ in closure == nil && ((try? UnixSocket.waitForInput(socket, timeout: .zero)) ?? false) } ?? false
    }

    /// Sends one message, with `descriptors` in its slots 0, 1, …. The descriptors stay
    /// the caller's; the peer receives copies.
    ///
    /// Frames held by ``send(_:within:)`` go first, in the same write when there are no
    /// descriptors (which a write carries with its first byte).
    public func send(_ message: WireMessage, descriptors: [FileDescriptor] = []) throws(ConnectionError) {
        let bytes = try Self.frame(message, descriptorCount: descriptors.count)
        let sent: Result<Void, SystemError> = sendLock.withLock { outbox in
            var held = outbox.take()
            if descriptors.isEmpty, !held.isEmpty {
                held += bytes
                return write(held)
            }
            if !held.isEmpty, case .failure(let error) = write(held) { return .failure(error) }
            return write(bytes, descriptors: descriptors)
        }
        if case .failure(let error) = sent { throw .system(error) }
    }

    /// Sends a one-way message within `delay`: with the next message sent on this
    /// connection, in the same write, or alone once `delay` has passed. For news the peer
    /// needs soon but not at once, such as a request's end, which then costs the peer no
    /// wake-up of its own when another message follows. Order with other sends is kept,
    /// and a local ``close()`` sends what waits first. Throws if the connection has closed.
    public func send(_ message: WireMessage, within delay: DispatchTimeInterval) throws(ConnectionError) {
        let bytes = try Self.frame(message, descriptorCount: 0)
        if let closure { throw .closed(closure) }
        guard sendLock.withLock({ $0.hold(bytes) }) else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.flushHeldFrames()
        }
    }

    /// Sends what ``send(_:within:)`` holds, if anything. A failure is the connection's end,
    /// which its reader reports.
    private func flushHeldFrames(scheduled: Bool = true) {
        sendLock.withLock { outbox in
            let held = scheduled ? outbox.takeForFlush() : outbox.take()
            if !held.isEmpty { _ = write(held) }
        }
    }

    private static func frame(_ message: WireMessage, descriptorCount: Int) throws(ConnectionError) -> [UInt8] {
        do {
            return try message.frameBytes(descriptorCount: descriptorCount)
        } catch {
            throw ConnectionError.wire(error)
        }
    }

    /// Writes `bytes` to the socket; call under the send lock.
    private func write(_ bytes: [UInt8], descriptors: [FileDescriptor] = []) -> Result<Void, SystemError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try UnixSocket.send(socket, buffer, descriptors: descriptors) }
        }
    }

    /// Sends a call and waits for the answer with the same call number: the message built
    /// by `message(call)`, answered by a message whose ``WireMessage/callNumber`` matches.
    /// A ``WireMessage/failure(_:)`` answer is thrown as ``ConnectionError/failed(_:)``.
    public func call(_ message: (UInt64) -> WireMessage, descriptors: [FileDescriptor] = []) async throws(ConnectionError) -> IncomingMessage {
        let answer: Result<IncomingMessage, ConnectionError> = await withCheckedContinuation { continuation in
            send(call: message, descriptors: descriptors) { continuation.resume(returning: $0) }
        }
        return try Self.unwrap(answer)
    }

    /// ``call(_:descriptors:)`` for synchronous code: blocks the calling thread until the
    /// answer arrives, the connection ends, or `timeout` passes (an `ETIMEDOUT` system
    /// error; an answer that comes later goes to the handler). Never call it from this
    /// connection's handler, which runs on the thread that would read the answer.
    public func callWaiting(_ message: (UInt64) -> WireMessage, descriptors: [FileDescriptor] = [],
                            timeout: DispatchTimeInterval = .seconds(5)) throws(ConnectionError) -> IncomingMessage {
        let answer = Locked<Result<IncomingMessage, ConnectionError>?>(nil)
        let arrived = DispatchSemaphore(value: 0)
        let number = send(call: message, descriptors: descriptors) { result in
            answer.withLock { $0 = result }
            arrived.signal()
        }
        if arrived.wait(timeout: .now() + timeout) == .timedOut {
            calls.resume(number, with: .failure(.system(SystemError("call", subject: "answer within \(timeout)", errno: ETIMEDOUT))))
            arrived.wait() // the answer or the timeout, whichever resumed the call
        }
        return try Self.unwrap(answer.withLock { $0! })
    }

    /// Registers a call, sends it, and passes its answer (or why there is none) to `resume`.
    /// Returns the call's number.
    @discardableResult
    private func send(call message: (UInt64) -> WireMessage, descriptors: [FileDescriptor],
                      resume: @escaping PendingCalls.Resume) -> UInt64 {
        let number = calls.nextNumber()
        calls.register(number, resume)
        if let closure = self.closure {
            calls.resume(number, with: .failure(.closed(closure)))
            return number
        }
        do throws(ConnectionError) {
            try send(message(number), descriptors: descriptors)
        } catch {
            calls.resume(number, with: .failure(error))
        }
        return number
    }

    private static func unwrap(_ answer: Result<IncomingMessage, ConnectionError>) throws(ConnectionError) -> IncomingMessage {
        let incoming = try answer.get()
        if case .failure(let failure) = incoming.message { throw .failed(failure.error) }
        return incoming
    }

    /// Starts reading, on a thread of the connection's own or on the process's event loop
    /// (``ConnectionReading``). `handler` gets every message that isn't the answer to a
    /// ``call(_:descriptors:)``, in order; `onClose` runs once, last, when the connection ends.
    public func start(reading: ConnectionReading = .ownThread, handler: @escaping @Sendable (IncomingMessage) -> Void,
                      onClose: @escaping @Sendable (ConnectionClosure) -> Void = { _ in }) {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        precondition(!alreadyStarted, "Connection.start called twice on \(name)")
        switch reading {
        case .ownThread:
            let thread = Thread { [self] in
                end(readLoop(handler: handler), onClose: onClose)
            }
            thread.name = "appex-\(name)"
            thread.stackSize = 1 << 20
            thread.start()
        case .eventLoop:
            EventLoopReader(connection: self, handler: handler, onClose: onClose).start()
        }
    }

    /// Ends the connection once its reading has: tells the peer what was wrong with its
    /// bytes, if they were at fault, closes, and runs `onClose`.
    func end(_ closure: ConnectionClosure, onClose: (ConnectionClosure) -> Void) {
        if untrusted != nil, case .protocolError(let error) = closure { tellPeer(error) }
        finish(closure)
        onClose(closure)
    }

    /// Closes the connection: the reader stops and `onClose` gets ``ConnectionClosure/closedLocally``.
    public func close() {
        flushHeldFrames(scheduled: false)
        state.withLock { state in
            if state.closure == nil { state.closure = .closedLocally }
        }
        UnixSocket.shutdown(socket)
        if !state.withLock({ $0.started }) {
            finish(.closedLocally)
        }
    }

    /// Closes the connection from another thread as its peer's fault: the reader stops, and
    /// the peer is told `error` before the close, as for bytes that broke the protocol.
    func refuse(_ error: WireError) {
        state.withLock { state in
            if state.closure == nil { state.closure = .protocolError(error) }
        }
        UnixSocket.shutdownReading(socket)
    }

    private func finish(_ closure: ConnectionClosure) {
        if let account = untrusted?.descriptors {
            _ = account.budget.hold(0, by: ObjectIdentifier(self), of: account.peer, refuse: { _ in }, offset: 0)
        }
        let final = state.withLock { state in
            if state.closure == nil { state.closure = closure }
            return state.closure!
        }
        calls.failAll(.closed(final))
        // Close under the send lock: a send that has read the descriptor's number must finish
        // before the number is freed, or it could write into whatever file reuses it. Shutting
        // down first wakes a send blocked on a full socket, so the lock comes free.
        UnixSocket.shutdown(socket)
        sendLock.withLock { _ in socket.close() }
    }

    /// Reads on the calling thread, blocked until bytes come, until the connection ends.
    private func readLoop(handler: (IncomingMessage) -> Void) -> ConnectionClosure {
        var inbound = Inbound()
        var buffer = [UInt8](repeating: 0, count: Inbound.readSize)
        while true {
            do throws(SystemError) {
                if let frameDeadline = untrusted?.frameDeadline, let frameBegan = inbound.frameBegan,
                   try !UnixSocket.waitForInput(socket, timeout: frameBegan + frameDeadline - .now) {
                    return incompleteFrame(inbound, frameDeadline)
                }
            } catch {
                return self.closure ?? .systemError(error)
            }
            let ended = buffer.withUnsafeMutableBytes { read(into: $0, inbound: &inbound, waiting: true, handler: handler) }
            if case .ended(let closure) = ended { return closure }
        }
    }

    /// What one read came to.
    enum ReadStep {
        /// Frames were delivered, or bytes of one not yet whole were kept.
        case read
        /// Nothing was there to read (only without waiting).
        case nothingToRead
        /// The connection ended, for this reason.
        case ended(ConnectionClosure)
    }

    /// Reads what the peer sent into `buffer`, waiting for it or not, and delivers each frame
    /// that is whole: an answer to its call, anything else to `handler`.
    func read(into buffer: UnsafeMutableRawBufferPointer, inbound: inout Inbound, waiting: Bool,
                          handler: (IncomingMessage) -> Void) -> ReadStep {
        let before = inbound.received.count
        let count: Int
        do throws(SystemError) {
            count = try UnixSocket.receive(socket, into: buffer, descriptors: &inbound.received, waiting: waiting)
        } catch {
            if !waiting, error.errno == EAGAIN || error.errno == EWOULDBLOCK { return .nothingToRead }
            if let closure = self.closure { return .ended(closure) }
            return .ended(error.errno == EMSGSIZE
                ? .protocolError(WireError(.descriptorMismatch, at: inbound.decoder.streamOffset, "more descriptors arrived than one read may take"))
                : .systemError(error))
        }
        if count == 0 { return .ended(self.closure ?? .endOfStream) }
        if !hasRead.load(ordering: .relaxed) { hasRead.store(true, ordering: .releasing) }
        inbound.decoder.receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]), descriptors: inbound.received.count - before)
        var decoded = false
        do {
            while let frame = try inbound.decoder.nextFrame() {
                decoded = true
                let descriptors = Array(inbound.received.prefix(frame.descriptorCount))
                inbound.received.removeFirst(frame.descriptorCount)
                let message = try WireMessage(frame)
                let incoming = IncomingMessage(message: message, descriptors: descriptors)
                if let number = message.callNumber, calls.resume(number, with: .success(incoming)) { continue }
                handler(incoming)
            }
        } catch {
            return .ended(.protocolError(error))
        }
        // What is left came with frames not yet whole: it counts against the peer's share.
        if let account = untrusted?.descriptors, inbound.received.count != inbound.held {
            inbound.held = inbound.received.count
            if let error = account.budget.hold(inbound.held, by: ObjectIdentifier(self), of: account.peer,
                                               refuse: { [weak self] in self?.refuse($0) }, offset: inbound.decoder.streamOffset) {
                return .ended(.protocolError(error))
            }
        }
        // What is left is the start of the next frame: its deadline runs from now if it
        // is new, and from its first byte if it is the same frame as before.
        if inbound.decoder.bufferedByteCount == 0 {
            inbound.frameBegan = nil
        } else if decoded || inbound.frameBegan == nil {
            inbound.frameBegan = .now
        }
        return .read
    }

    /// The closure for a frame of which `inbound` holds the start, not whole within `frameDeadline`.
    func incompleteFrame(_ inbound: Inbound, _ frameDeadline: Duration) -> ConnectionClosure {
        .protocolError(WireError(.incompleteFrame, at: inbound.decoder.streamOffset,
                                 "\(inbound.decoder.bufferedByteCount) bytes of a frame came, and not the rest within \(frameDeadline)"))
    }

    /// Tells the peer what was wrong with its bytes, as the connection closes. The peer
    /// may not be reading: the send gives up after a second, and is skipped if another send
    /// holds the lock, since that one may be blocked on a full socket until ``finish(_:)``
    /// shuts it down.
    private func tellPeer(_ error: WireError) {
        let refusal = AppexErrorDomain.runtimeError(7, "\(error); the connection is closed",
                                                    recovery: "Send whole frames, as docs/wire.md describes: the sender's wire code is at fault, not what it asked.")
        guard let bytes = try? WireMessage.failure(Failure(error: refusal)).frameBytes(descriptorCount: 0) else { return }
        _ = sendLock.withLockIfAvailable { _ in
            _ = try? UnixSocket.setSendTimeout(socket, seconds: 1)
            bytes.withUnsafeBytes { _ = try? UnixSocket.send(socket, $0) }
        }
    }

    public var description: String { "connection to \(name)" }
}
