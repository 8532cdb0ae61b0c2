import AppexIPC
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// A listener accepts on its own thread, and stop() ends that thread and removes the socket file.
@Suite(.timeLimit(.minutes(1))) struct ListenerTests {
    @Test func acceptedConnectionsAreServedAndStopRemovesTheSocketFile() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("appexd.sock").path
        let listener = try Listener(path: path)
        #expect(listener.path == path)
        let servers = Inbox<Connection>()
        listener.start { socket in servers.put(startServer(socket)) }
        #expect(FileManager.default.fileExists(atPath: path))

        for _ in 0..<3 {
            let (client, _) = startClient(try UnixSocket.connect(to: path))
            #expect(try await client.call { .ping(Call($0)) }.message.name == "Pong")
            client.close()
        }
        #expect(servers.delivered.count == 3)

        listener.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
        let refused = #expect(throws: SystemError.self) { try UnixSocket.connect(to: path) }
        #expect(refused?.errno == ENOENT)
        servers.delivered.forEach { $0.close() }
    }

    @Test func stopIsIdempotent() throws {
        let folder = try TemporaryDirectory()
        let listener = try Listener(path: folder.url.appendingPathComponent("s.sock").path)
        listener.start { $0.close() }
        listener.stop()
        listener.stop()
        #expect(!FileManager.default.fileExists(atPath: listener.path))
    }

    @Test func stopWithoutStartReturnsAndRemovesTheSocketFile() throws {
        let folder = try TemporaryDirectory()
        let listener = try Listener(path: folder.url.appendingPathComponent("s.sock").path)
        #expect(FileManager.default.fileExists(atPath: listener.path))
        listener.stop()
        #expect(!FileManager.default.fileExists(atPath: listener.path))
    }

    @Test func listeningWhereASocketAlreadyIsFails() throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("s.sock").path
        let first = try Listener(path: path)
        defer { first.stop() }
        let error = #expect(throws: SystemError.self) { try Listener(path: path) }
        #expect(error?.errno == EADDRINUSE)
    }
}
