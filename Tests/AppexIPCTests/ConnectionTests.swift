import AppexIPC
import AppexSystem
import AppexWire
import Testing

@Suite struct ConnectionTests {
    @Test func aCallGetsItsAnswer() async throws {
        let (left, right) = try UnixSocket.pair()
        let client = Connection(socket: left, name: "client")
        let server = Connection(socket: right, name: "server")
        server.start { incoming in
            if case .ping(let call) = incoming.message { try? server.send(.pong(call)) }
        }
        client.start { _ in }
        let answer = try await client.call { .ping(Call($0)) }
        #expect(answer.message.name == "Pong")
        client.close()
        server.close()
    }
}
