import AppexCore
import AppexIPC
import AppexSamples
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Testing

/// A thousand hosts that greet appexd and then say nothing, as open share sheets and widget
/// walls do, cost it little: no thread and no read buffer each (docs/runtime.md,
/// "Connections"). A thread and a 64 KiB buffer per connection cost 87 MiB for these.
/// A new client is served meanwhile; how fast is printed, not asserted (the machines are shared).
@Suite(.serialized, .timeLimit(.minutes(5)))
final class IdleConnectionsTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
    }

    @Test func aThousandGreetedIdleConnectionsCostAppexdLittleAndANewClientIsServed() async throws {
        let (processes, connections) = (8, 125)
        let daemon = try #require(world.daemons().first)
        // A first client, so that what appexd makes once for any client is made before.
        _ = try await Self.pingRoundTrip(world.test.home.daemonSocketURL.path)
        let before = try #require(ProcessMemory.footprint(of: [daemon]))
        let descriptorsBefore = ResourceCounts.held(by: daemon).descriptors

        let runner = CommandRunner(executable: AppexBuild.products.appendingPathComponent("AppexConnectionFlood"), environment: world.test.environment)
        let markers = (0..<processes).map { world.root.appendingPathComponent("idle-\($0)") }
        let floods = markers.map { marker in
            Task { [runner, socket = world.test.home.daemonSocketURL.path] in
                try await runner.run([socket, String(connections), "20", marker.path, "0"])
            }
        }
        #expect(await eventually(seconds: 120) { markers.allSatisfy { FileManager.default.fileExists(atPath: $0.path) } }, "every process opened its connections")
        #expect(await eventually(seconds: 30) { ResourceCounts.held(by: daemon).descriptors >= descriptorsBefore + processes * connections },
                "appexd accepted them all: \(ResourceCounts.held(by: daemon).descriptors - descriptorsBefore)")
        // Time to read every Hello and answer it.
        try await Task.sleep(for: .seconds(2))
        let during = try #require(ProcessMemory.footprint(of: [daemon]))
        let threads = ResourceCounts.held(by: daemon).threads
        let roundTrip = try await Self.pingRoundTrip(world.test.home.daemonSocketURL.path)

        for flood in floods {
            let result = try await flood.value
            try #require(result.status == 0, "\(result.standardError)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
            #expect(report["stillOpen"] as? Int == connections, "appexd closed none of them: \(report)")
        }
        let grown = Int64(during) - Int64(before)
        print("idle connections: \(processes * connections) greeted and idle; appexd's footprint \(before >> 10) KiB before, \(during >> 10) KiB"
              + " with them (\(grown / 1024) KiB, \(grown / Int64(processes * connections)) bytes each), \(threads) threads; a new client's ping"
              + " answered in \(roundTrip) while they were held")
        if !Sanitizers.areActive {
            #expect(grown < 10 << 20, "appexd's footprint grew by \(grown >> 10) KiB for \(processes * connections) idle connections")
        }
    }

    /// A client that connects, asks and closes again and again, as `appex` commands and
    /// polling hosts do, is served every time, and appexd lets go of each connection at once:
    /// its socket, and the pidfd of the client's process it keeps with it.
    @Test func aClientThatConnectsAndClosesAThousandTimesIsAlwaysServed() async throws {
        let daemon = try #require(world.daemons().first)
        _ = try await Self.pingRoundTrip(world.test.home.daemonSocketURL.path)
        let descriptorsBefore = ResourceCounts.held(by: daemon).descriptors
        for _ in 0..<1_000 {
            _ = try await Self.pingRoundTrip(world.test.home.daemonSocketURL.path)
        }
        // Well before the handshake deadline (10 s), which held each client's pidfd until it passed.
        #expect(await eventually(seconds: 5) { ResourceCounts.held(by: daemon).descriptors <= descriptorsBefore + 2 },
                "appexd holds \(ResourceCounts.held(by: daemon).descriptors - descriptorsBefore) descriptors more than before")
    }

    /// A client that writes its `Hello` and hangs up at once, before appexd has begun to
    /// watch its socket, is read and closed all the same. Read with libdispatch's sources,
    /// such a connection was never read and never closed: its `Hello` excused it from the
    /// handshake deadline, so a client doing this again and again took appexd's descriptors.
    @Test func clientsThatGreetAndHangUpAtOnceAreAllClosed() async throws {
        let daemon = try #require(world.daemons().first)
        _ = try await Self.pingRoundTrip(world.test.home.daemonSocketURL.path)
        let descriptorsBefore = ResourceCounts.held(by: daemon).descriptors
        let hello = try WireMessage.hello(Hello(role: .host, name: "greets and goes")).frameBytes(descriptorCount: 0)
        for attempt in 0..<500 {
            let socket = try UnixSocket.connect(to: world.test.home.daemonSocketURL.path)
            defer { socket.close() }
            do {
                try hello.withUnsafeBytes { try UnixSocket.send(socket, $0) }
            } catch {
                // appexd closed it unread, as one too many from this process (128).
                Issue.record("connection \(attempt) was refused (\(error)): appexd still held those before it")
                break
            }
        }
        #expect(await eventually(seconds: 5) { ResourceCounts.held(by: daemon).descriptors <= descriptorsBefore + 2 },
                "appexd holds \(ResourceCounts.held(by: daemon).descriptors - descriptorsBefore) descriptors more than before")
        _ = try await Self.pingRoundTrip(world.test.home.daemonSocketURL.path)
    }

    /// Connects to appexd as a new client, greets it, and times one `Ping` answered.
    static func pingRoundTrip(_ path: String) async throws -> Duration {
        let connection = Connection(socket: try UnixSocket.connect(to: path), name: "appexd")
        defer { connection.close() }
        let (welcomes, welcomed) = AsyncStream<Void>.makeStream()
        connection.start { incoming in
            if case .welcome = incoming.message { welcomed.yield() }
        } onClose: { _ in welcomed.finish() }
        try connection.send(.hello(Hello(role: .host, name: "idle connections test")))
        var waiting = welcomes.makeAsyncIterator()
        try #require(await waiting.next() != nil, "appexd welcomed the client")
        let started = ContinuousClock.now
        let answer = try await connection.call { .ping(Call($0)) }
        let elapsed = ContinuousClock.now - started
        #expect(answer.message.name == "Pong")
        return elapsed
    }
}
