import AppexIPC
import AppexSystem
import AppexWire
import Foundation
import Glibc
import Testing

/// How connections end: a bad frame closes that one connection with a protocol error and
/// fails its pending calls; a peer's close is the end of the stream; close() is idempotent;
/// onClose runs exactly once.
@Suite(.timeLimit(.minutes(1))) struct ConnectionClosureTests {
    /// Starts a call on `client` and waits until `peer` has its frame, so the call is
    /// certainly pending. Returns the task that awaits the call's outcome.
    func pendingCall(on client: Connection, seenBy peer: RawPeer) async throws -> Task<Result<IncomingMessage, ConnectionError>, Never> {
        let task = Task { () -> Result<IncomingMessage, ConnectionError> in
            do throws(ConnectionError) {
                return .success(try await client.call { .ping(Call($0)) })
            } catch {
                return .failure(error)
            }
        }
        let sent = try await peer.receive()
        guard case .ping? = sent?.message else {
            Issue.record("expected the call's Ping, got \(String(describing: sent?.message.name))")
            return task
        }
        return task
    }

    /// The protocol error a closure carries, if it is one.
    func protocolError(_ closure: ConnectionClosure?) -> WireError? {
        if case .protocolError(let error)? = closure { return error }
        return nil
    }

    @Test func aGarbageFrameClosesOnlyThatConnectionAndFailsItsCalls() async throws {
        let (left, right) = try UnixSocket.pair()
        let peer = RawPeer(right)
        let (client, closures) = startClient(left)
        // A second connection, independent of the first, in the same process.
        let (otherLeft, otherRight) = try UnixSocket.pair()
        let otherServer = startServer(otherRight)
        let (otherClient, otherClosures) = startClient(otherLeft)
        defer { client.close(); otherClient.close(); otherServer.close() }

        let call = try await pendingCall(on: client, seenBy: peer)
        try peer.write([0, 0, 0, 0, 5, 0, 0, 0x01]) // a header with a reserved flag set

        let closure = await closures.next()
        #expect(protocolError(closure)?.code == .reservedBits)
        #expect(protocolError(closure)?.offset == 7)
        #expect(client.closure == closure)
        guard case .failure(.closed(let why)) = await call.value else {
            Issue.record("the pending call should fail when the connection closes")
            return
        }
        #expect(protocolError(why)?.code == .reservedBits)
        #expect(try await peer.receive() == nil, "the connection's socket is closed: the peer reads the end")

        #expect(try await otherClient.call { .ping(Call($0)) }.message.name == "Pong")
        #expect(otherClient.closure == nil)
        #expect(otherClosures.delivered.isEmpty)
    }

    /// The protocol error a started connection closes with, once its peer has written
    /// `writes` (each raw bytes, with the descriptors sent beside them). The peer stays open.
    func protocolError(afterPeerWrites writes: [([UInt8], [FileDescriptor])]) async throws -> WireError? {
        let (left, right) = try UnixSocket.pair()
        let peer = RawPeer(right)
        let (client, closures) = startClient(left)
        defer { client.close() }
        for (bytes, descriptors) in writes { try peer.write(bytes, descriptors: descriptors) }
        return protocolError(await closures.next())
    }

    @Test func anUnknownMessageTypeIsAProtocolError() async throws {
        let error = try await protocolError(afterPeerWrites: [(Frame(type: 999, payload: [0x08, 0x01]).bytes, [])])
        #expect(error?.code == .unknownMessageType)
    }

    @Test func aMalformedPayloadIsAProtocolError() async throws {
        let error = try await protocolError(afterPeerWrites: [
            (try WireMessage.ping(Call(1)).frameBytes(), []), // a good frame first
            (Frame(type: 30, payload: [0x0A, 0x02, 0xC3, 0x28]).bytes, []), // CheckIn with invalid UTF-8
        ])
        #expect(error?.code == .invalidUTF8)
        #expect(error?.offset == 0, "payload errors count from the payload's start")
    }

    @Test func anOversizedFrameClosesTheConnectionWithoutWaitingForItsPayload() async throws {
        // Only the header of a 16 MiB frame: the payload never comes.
        let error = try await protocolError(afterPeerWrites: [([0, 0, 0, 1, 42, 0, 0, 0], [])])
        #expect(error?.code == .frameTooLarge)
        #expect(error?.offset == 0)
    }

    @Test func descriptorsNoFrameClaimsAreAProtocolError() async throws {
        let file = try memoryFile("flood")
        // Frames that claim no descriptors, each sent with ten: they pile up past one frame's worth.
        let frame = try WireMessage.ping(Call(0)).frameBytes()
        let error = try await protocolError(afterPeerWrites: Array(repeating: (frame, Array(repeating: file, count: 10)), count: 7))
        #expect(error?.code == .descriptorMismatch)
    }

    @Test func aSendBlockedOnAFullSocketFailsWhenTheConnectionCloses() async throws {
        let (left, right) = try UnixSocket.pair()
        let peer = RawPeer(right) // reads nothing
        let (client, closures) = startClient(left)
        defer { client.close() }
        // Half-megabyte frames fill the socket at once, so the sending thread blocks in sendmsg.
        let big = WireMessage.loadResult(LoadResult(loadID: 1, typeIdentifier: "t", payload: .data(Data(count: 1 << 19))))
        let senderThread = Inbox<String>()
        let outcome = Inbox<ConnectionError?>() // an inbox, not a continuation: awaiting it can be cancelled
        Thread {
            senderThread.put((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "")
            do throws(ConnectionError) {
                for _ in 0..<1_000 { try client.send(big) }
                outcome.put(nil)
            } catch {
                outcome.put(error)
            }
        }.start()
        let thread = try #require(await senderThread.next())
        try #require(waitUntilBlockedInSendmsg("/proc/\(thread)/syscall"))

        try peer.write([0, 0, 0, 0, 5, 0, 0, 0xFF]) // now the peer breaks the protocol
        #expect(protocolError(await closures.next())?.code == .reservedBits)
        guard case .system?? = await outcome.next() else {
            Issue.record("the blocked send should fail once the connection closes")
            return
        }
    }

    /// Spins until the thread whose `syscall` file is at `path` sleeps in sendmsg; false if it
    /// never does (it ended, or this kernel doesn't say).
    func waitUntilBlockedInSendmsg(_ path: String) -> Bool {
        #if arch(x86_64)
        let sendmsg = "46"
        #else
        let sendmsg = "211" // aarch64
        #endif
        for _ in 0..<10_000_000 {
            guard let state = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
            if state.split(separator: " ").first == Substring(sendmsg) { return true }
            sched_yield()
        }
        return false
    }

    @Test func aPeerClosingIsTheEndOfTheStream() async throws {
        let (left, right) = try UnixSocket.pair()
        let peer = RawPeer(right)
        let (client, closures) = startClient(left)
        defer { client.close() }

        let call = try await pendingCall(on: client, seenBy: peer)
        right.close()
        #expect(await closures.next() == .endOfStream)
        #expect(await call.value.failureValue == .closed(.endOfStream))
        #expect(client.closure == .endOfStream)
        let after = await #expect(throws: ConnectionError.self) { try await client.call { .ping(Call($0)) } }
        #expect(after == .closed(.endOfStream))
    }

    @Test func closeIsIdempotentAndOnCloseRunsOnce() async throws {
        let (left, right) = try UnixSocket.pair()
        let peer = RawPeer(right)
        let (client, closures) = startClient(left)

        let call = try await pendingCall(on: client, seenBy: peer)
        client.close()
        client.close()
        #expect(await closures.next() == .closedLocally)
        client.close()
        #expect(await call.value.failureValue == .closed(.closedLocally))
        #expect(client.closure == .closedLocally)
        #expect(try await peer.receive() == nil, "the peer sees the end of the stream")
        let after = await #expect(throws: ConnectionError.self) { try await client.call { .ping(Call($0)) } }
        #expect(after == .closed(.closedLocally))
        #expect(closures.delivered == [.closedLocally], "onClose ran once")
        #expect(ConnectionClosure.closedLocally.description == "closed by this side")
    }

    @Test func aConnectionClosedBeforeItStartsRefusesCalls() async throws {
        let (left, right) = try UnixSocket.pair()
        defer { right.close() }
        let client = Connection(socket: left, name: "never started")
        client.close()
        #expect(client.closure == .closedLocally)
        let error = await #expect(throws: ConnectionError.self) { try await client.call { .ping(Call($0)) } }
        #expect(error == .closed(.closedLocally))
        #expect(throws: ConnectionError.self) { try client.send(.ping(Call(1))) }
        // Started afterwards, it ends at once, still saying why.
        let closures = Inbox<ConnectionClosure>()
        client.start(handler: { _ in }, onClose: { closures.put($0) })
        #expect(await closures.next() == .closedLocally)
    }
    /// appexd asks whether a process holding a background session is gone before it refuses
    /// another the session: the peer's close counts at once, before the reader has read to it.
    @Test func aPeerThatClosedHasHungUpBeforeItsEndIsRead() throws {
        let (left, right) = try UnixSocket.pair()
        let connection = Connection(socket: left, name: "not started")
        defer { connection.close() }
        let peer = RawPeer(right)
        try peer.write(Frame(type: 999, payload: []).bytes)
        #expect(!connection.peerHasHungUp, "the peer is open, with bytes unread")
        right.close()
        #expect(connection.peerHasHungUp, "the peer closed; what it sent is still unread")
        #expect(connection.closure == nil)
    }

    @Test func aConnectionClosedHereHasHungUp() throws {
        let (left, right) = try UnixSocket.pair()
        defer { right.close() }
        let connection = Connection(socket: left, name: "closed")
        connection.close()
        #expect(connection.peerHasHungUp)
    }
}

extension Result {
    /// The error, for a failure.
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
