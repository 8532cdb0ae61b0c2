import AppexIPC
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Testing

/// Every socket and descriptor a connection touches is closed once it ends. Tests run in
/// parallel in one process, so rather than count descriptors these name the kernel objects
/// they created (`socket:[inode]`) and check none is still open anywhere in the process.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ResourceLeakTests {
    /// What `descriptor` refers to, such as `socket:[1234]`.
    func target(_ descriptor: FileDescriptor) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor.rawValue)")
    }

    /// Which of `targets` some descriptor of this process still refers to.
    func stillOpen(_ targets: Set<String>) -> Set<String> {
        targets.intersection(ResourceCounts.openDescriptorTargets())
    }

    @Test func connectionsThatEndCloseTheirSockets() async throws {
        let folder = try TemporaryDirectory()
        let listener = try Listener(path: folder.url.appendingPathComponent("s.sock").path)
        let accepted = Inbox<(Connection, Inbox<ConnectionClosure>, String)>()
        listener.start { socket in
            let closures = Inbox<ConnectionClosure>()
            let name = (try? target(socket)) ?? "?"
            let server = Connection(socket: socket, name: "server")
            server.start(handler: { incoming in
                if case .ping(let call) = incoming.message { try? server.send(.pong(call)) }
            }, onClose: { closures.put($0) })
            accepted.put((server, closures, name))
        }

        var created: Set<String> = []
        // Through the listener: the client closes, and the server sees the end of the stream.
        let (viaListener, listenerClosures) = startClient(try UnixSocket.connect(to: listener.path))
        _ = try await viaListener.call { .ping(Call($0)) }
        let (server, serverClosures, serverTarget) = try #require(await accepted.next())
        created.insert(serverTarget)
        // A pair: one side is sent garbage and closes with a protocol error; then the other closes.
        let (left, right) = try UnixSocket.pair()
        created.formUnion([try target(left), try target(right)])
        let peer = RawPeer(right)
        let (paired, pairedClosures) = startClient(left)
        try peer.write([1, 2, 3, 4, 5, 6, 7, 8])
        #expect(await pairedClosures.next().map { if case .protocolError = $0 { true } else { false } } == true)
        right.close()

        viaListener.close()
        #expect(await listenerClosures.next() == .closedLocally)
        #expect(await serverClosures.next() == .endOfStream)
        listener.stop()
        #expect(stillOpen(created).isEmpty, "\(stillOpen(created))")
        withExtendedLifetime((server, paired, peer)) {}
    }

    @Test func receivedDescriptorsAreClosedOnceTheirMessageGoes() async throws {
        let (left, right) = try UnixSocket.pair()
        let (sent, kept) = try UnixSocket.pair() // the descriptor that travels, and its far end
        let sentTarget = try target(sent)
        let server = Connection(socket: right, name: "server")
        let arrived = Inbox<Int>()
        server.start { incoming in arrived.put(incoming.descriptors.count) } // drops the message
        let (client, _) = startClient(left)
        defer { client.close(); server.close() }

        try client.send(.ping(Call(1)), descriptors: [sent, sent, sent])
        sent.close()
        #expect(await arrived.next() == 3)
        // The handler put the count before it returned; the reader drops a message before it
        // reads the next, so once a second message has arrived the first one is gone.
        try client.send(.ping(Call(2)))
        #expect(await arrived.next() == 0)
        #expect(stillOpen([sentTarget]).isEmpty, "the handler dropped the message, and its three copies closed")
        kept.close()
    }

    @Test func descriptorsWithABadFrameAreClosedWithTheConnection() async throws {
        let (left, right) = try UnixSocket.pair()
        let (sent, kept) = try UnixSocket.pair()
        let targets: Set<String> = [try target(left), try target(sent)]
        let peer = RawPeer(right)
        let (client, closures) = startClient(left)
        // Descriptors in flight with frames that fail: one unclaimed, one claimed by a bad payload.
        try peer.write(try WireMessage.ping(Call(1)).frameBytes(), descriptors: [sent])
        try peer.write(Frame(type: 999, descriptorCount: 1, payload: []).bytes, descriptors: [sent])
        sent.close()
        #expect(await closures.next().map { if case .protocolError = $0 { true } else { false } } == true)
        #expect(stillOpen(targets).isEmpty, "\(stillOpen(targets))")
        withExtendedLifetime((client, kept)) {}
    }
}
