import AppexCore
import AppexHost
import AppexSamples
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Glibc
import AppexIPC
import AppexLocking
import Testing

/// appexd as a real process: started on demand, one per home, refusing bad peers, and
/// shutting down cleanly.
@Suite final class DaemonTests {
    let test: TestHome
    let appex: CommandRunner

    init() throws {
        test = try TestHome()
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
    }

    deinit {
        for pid in daemons() { kill(pid, SIGKILL) }
    }

    /// The appexd processes serving this test's home, found from /proc.
    func daemons() -> [Int32] {
        test.daemonProcessIDs()
    }

    @Test func runningAnExtensionThatIsNotInstalledSaysSoAndWhatToDo() async throws {
        let result = try await appex.run(["run", "com.example.nothing", "--text", "hi"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("no extension com.example.nothing is installed"), "\(result.standardError)")
        #expect(result.standardError.contains("appex list"), "\(result.standardError)")
    }

    @Test func theCLIStartsTheDaemonOnDemandAndSIGTERMStopsItCleanly() async throws {
        #expect(daemons().isEmpty)
        let result = try await appex.run(["ps"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("PID"))
        let running = daemons()
        try #require(running.count == 1)
        #expect(FileManager.default.fileExists(atPath: test.home.daemonSocketURL.path))
        let mode = try FileManager.default.attributesOfItem(atPath: test.home.runtimeDirectory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)

        kill(running[0], SIGTERM)
        #expect(await eventually { daemons().isEmpty })
        #expect(!FileManager.default.fileExists(atPath: test.home.daemonSocketURL.path))
    }

    @Test func severalStartersAtOnceLeaveExactlyOneDaemon() async throws {
        let processes = try (0..<4).map { _ in
            let process = Process()
            process.executableURL = appex.executable
            process.arguments = ["ps", "--json"]
            process.environment = appex.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes { await process.exited() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        #expect(await eventually { daemons().count == 1 })
    }

    @Test func aDaemonThatResetsTheConnectionAsItDiesIsReplacedByANewOne() async throws {
        // As a daemon killed a moment ago does: its listening socket takes the connection,
        // and closes it unanswered. Then the socket is gone.
        try test.home.prepareRuntimeDirectory()
        let path = test.home.daemonSocketURL.path
        let dying = try UnixSocket.listen(at: path)
        let gone = Thread {
            if let connection = try? UnixSocket.accept(dying) { connection.close() }
            dying.close()
            unlink(path)
        }
        gone.start()
        let client = try await DaemonClient.connect(home: test.home, role: .cli)
        defer { client.close() }
        // The client may have started a second appexd while the socket's path changed hands;
        // that one finds the first serving, and leaves.
        #expect(await eventually { daemons() == [client.daemonPID] }, "a new appexd answered the next try, and it alone stays")
        #expect(try await client.processes().isEmpty)
    }

    @Test func aGarbageFrameClosesOnlyThatConnection() async throws {
        let daemon = try await DaemonClient.connect(home: test.home, role: .cli)
        defer { daemon.close() }

        let raw = try UnixSocket.connect(to: test.home.daemonSocketURL.path)
        // A header announcing a 16 MiB payload: refused as soon as the header arrives.
        try [UInt8]([0, 0, 0, 1, 1, 0, 0, 0]).withUnsafeBytes { try UnixSocket.send(raw, $0) }
        var decoder = FrameDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var descriptors: [FileDescriptor] = []
        while case let count = try buffer.withUnsafeMutableBytes({ try UnixSocket.receive(raw, into: $0, descriptors: &descriptors) }), count > 0 {
            decoder.receive(buffer[..<count])
        }
        // The daemon says why, and closes the connection that sent garbage.
        let told = try decoder.nextFrame().map(WireMessage.init)
        guard case .failure(let refusal)? = told else {
            Issue.record("expected a Failure before the close, got \(String(describing: told))")
            return
        }
        #expect(refusal.error.code == 7 && refusal.error.message.contains("frameTooLarge"), "\(refusal.error.message)")

        #expect(try await daemon.processes().isEmpty, "and keeps serving everyone else")
        // The daemon closes the connection and logs why on its reader thread: the log line
        // may land just after the peer sees the close.
        let logURL = test.home.daemonLogURL
        #expect(await eventually { ((try? String(contentsOf: logURL, encoding: .utf8)) ?? "").contains("frameTooLarge") })
    }

    /// Greetings appexd refuses, and what its refusal must say.
    static let badGreetings: [(WireMessage, String)] = [
        (.ping(Call(1)), "must be Hello"),
        (.hello(Hello(role: .host, name: "x", minimumVersion: 6, maximumVersion: 2)), "6–2, an empty range"),
        (.hello(Hello(role: .host, name: "x", minimumVersion: WireVersion.current + 1, maximumVersion: WireVersion.current + 4)), "versions 1–\(WireVersion.current)"),
        (.hello({ var hello = Hello(role: .host, name: "x"); hello.protocolName = "http"; return hello }()), "speaks protocol \"http\""),
    ]

    @Test(arguments: badGreetings)
    func aClientThatFailsTheHandshakeIsRefusedWithAReason(_ greeting: WireMessage, _ reason: String) async throws {
        _ = try await appex.run(["ps"])
        let raw = try UnixSocket.connect(to: test.home.daemonSocketURL.path)
        let connection = Connection(socket: raw, name: "rude")
        let answer = Locked<WireMessage?>(nil)
        let closed = DispatchSemaphore(value: 0)
        connection.start { incoming in answer.withLock { $0 = incoming.message } } onClose: { _ in closed.signal() }
        try connection.send(greeting)
        _ = try await onThread { closed.wait() }
        guard case .failure(let failure)? = answer.withLock({ $0 }) else {
            Issue.record("expected a Failure before the close")
            return
        }
        #expect(failure.error.message.contains(reason), "\(failure.error.message)")
        let daemon = try await DaemonClient.connect(home: test.home, role: .cli)
        defer { daemon.close() }
        #expect(try await daemon.processes().isEmpty, "appexd serves everyone else")
    }

    @Test func aDaemonKilledWithSIGKILLIsReplacedOnNextUse() async throws {
        _ = try await appex.run(["ps"])
        let first = try #require(daemons().first)
        kill(first, SIGKILL)
        #expect(await eventually { !daemons().contains(first) })
        let result = try await appex.run(["ps"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(daemons().count == 1 && !daemons().contains(first))
    }
}
