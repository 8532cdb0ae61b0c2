import AppexCore
import AppexHost
import AppexSamples
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// Peers that misbehave on purpose against a real appexd: each gets a clear refusal, and
/// appexd goes on serving everyone else (docs/threat-model.md).
@Suite final class HostilePeerTests {
    let test: TestHome
    let appex: CommandRunner
    /// Short, so a test of silent connections doesn't wait appexd's default 10 s.
    static let handshakeDeadline = 2_000

    init() throws {
        test = try TestHome()
        var environment = test.environment
        environment["APPEX_HANDSHAKE_DEADLINE_MS"] = String(Self.handshakeDeadline)
        appex = CommandRunner(executable: SampleApps.products.appendingPathComponent("appex"), environment: environment)
    }

    deinit {
        for pid in test.daemonProcessIDs() { kill(pid, SIGKILL) }
    }

    /// Starts appexd for this test's home and returns its pid.
    func startDaemon() async throws -> Int32 {
        let result = try await appex.run(["ps"])
        try #require(result.status == 0, "\(result.standardError)")
        return try #require(test.daemonProcessIDs().first)
    }

    /// How many descriptors and threads `pid` has open.
    func resources(of pid: Int32) -> (descriptors: Int, threads: Int) {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
        return (descriptors, threads)
    }

    /// Reads every socket until appexd closes it, for at most `seconds`, and returns what
    /// each received, decoded; nil for a socket still open at the end.
    static func readUntilClosed(_ sockets: [FileDescriptor], seconds: Double) -> [[WireMessage]?] {
        var polled = sockets.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        var received = [[UInt8]](repeating: [], count: sockets.count)
        var closed = [Bool](repeating: false, count: sockets.count)
        var open = sockets.count
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while open > 0, ContinuousClock.now < deadline {
            guard poll(&polled, nfds_t(polled.count), 200) > 0 else { continue }
            for index in polled.indices where polled[index].revents != 0 {
                let count = read(polled[index].fd, &buffer, buffer.count)
                if count > 0 {
                    received[index] += buffer[0..<count]
                } else {
                    closed[index] = true
                    polled[index].fd = -1
                    open -= 1
                }
            }
        }
        return received.indices.map { index in
            guard closed[index] else { return nil }
            var decoder = FrameDecoder()
            decoder.receive(received[index])
            var messages: [WireMessage] = []
            while let frame = try? decoder.nextFrame(), let message = try? WireMessage(frame) { messages.append(message) }
            return messages
        }
    }

    /// The reason of a refusal in `messages`, if they are one `Failure` of `code`.
    static func refusal(_ messages: [WireMessage]?, code: Int) -> String? {
        guard let messages, messages.count == 1, case .failure(let failure) = messages[0], failure.error.code == code else { return nil }
        return failure.error.message
    }

    @Test func tenThousandIdleConnectionsAreEachRefusedWithTheReasonAndAppexdServesEveryoneElse() async throws {
        let count = 10_000
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < rlim_t(count + 1024) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(count + 1024))
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        try #require(limit.rlim_cur >= rlim_t(count + 1024), "this test opens \(count) sockets; raise the hard limit on open files (ulimit -Hn)")
        let daemon = try await startDaemon()
        let before = resources(of: daemon)

        let path = test.home.daemonSocketURL.path
        let started = ContinuousClock.now
        let sockets = try await onThread { try (0..<count).map { _ in try UnixSocket.connect(to: path) } }
        let connected = ContinuousClock.now - started
        defer { for socket in sockets { socket.close() } }
        let served = try await appex.run(["ps"])
        #expect(served.status == 0, "appexd serves another process while \(count) connections sit idle: \(served.standardError)")

        let answers = try await onThread { Self.readUntilClosed(sockets, seconds: 60) }
        let reasons = answers.map { Self.refusal($0, code: 13) }
        #expect(answers.allSatisfy { $0 != nil }, "appexd closed every idle connection: \(answers.count { $0 == nil }) still open")
        #expect(reasons.allSatisfy { $0 != nil }, "each with one Failure saying why: \(Set(answers.filter { Self.refusal($0, code: 13) == nil }.map { "\($0 ?? [])" }).prefix(3))")
        let pushedOut = reasons.count { $0?.contains("newer connections waited for their handshake") == true }
        let timedOut = reasons.count { $0?.contains("sent no Hello within 2.0 s") == true }
        // appexd waits for at most 64 handshakes: each connection past those pushed out the
        // oldest, and `appex ps` may have pushed out one more (unless the newest had already
        // waited out the deadline by the time it came). The newest waited out the deadline.
        #expect(pushedOut + timedOut == count, "\(pushedOut) pushed out, \(timedOut) timed out")
        #expect((60...64).contains(timedOut), "\(pushedOut) pushed out, \(timedOut) timed out")

        let answered = ContinuousClock.now - started
        #expect(await eventually { self.resources(of: daemon).descriptors <= before.descriptors },
                "appexd let go of every socket: \(before.descriptors) descriptors before, \(self.resources(of: daemon).descriptors) after")
        #expect(await eventually { self.resources(of: daemon).threads <= before.threads + 2 },
                "and of their threads: \(before.threads) before, \(self.resources(of: daemon).threads) after")
        let again = try await appex.run(["ps"])
        #expect(again.status == 0, "\(again.standardError)")
        let after = resources(of: daemon)
        print("idle connections: \(count) opened in \(connected), all answered in \(answered): \(pushedOut) pushed out, \(timedOut) timed out;"
              + " appexd \(before.descriptors) descriptors and \(before.threads) threads before, \(after.descriptors) and \(after.threads) after")
    }

    @Test func aProcessHoldingTooManyConnectionsIsRefusedTheNextOne() async throws {
        _ = try await startDaemon()
        let path = test.home.daemonSocketURL.path
        let hello = try WireMessage.hello(Hello(role: .host, name: "greedy")).frameBytes()
        let limit = 128
        let greeted = try await onThread {
            try (0..<limit).map { _ in
                let socket = try UnixSocket.connect(to: path)
                try hello.withUnsafeBytes { try UnixSocket.send(socket, $0) }
                var welcome = [UInt8](repeating: 0, count: 512)
                var descriptors: [FileDescriptor] = []
                _ = try welcome.withUnsafeMutableBytes { try UnixSocket.receive(socket, into: $0, descriptors: &descriptors) }
                return socket
            }
        }
        defer { for socket in greeted { socket.close() } }
        let extra = try UnixSocket.connect(to: path)
        defer { extra.close() }
        let answer = try await onThread { Self.readUntilClosed([extra], seconds: 10) }
        let reason = Self.refusal(answer[0], code: 13)
        #expect(reason?.contains("already holds \(limit) connections to appexd, the most one process may") == true, "\(answer)")

        let served = try await appex.run(["ps"])
        #expect(served.status == 0, "another process is served: \(served.standardError)")
    }

    @Test(.enabled(if: geteuid() == 0, "becoming another user needs root"))
    func aClientOfAnotherUserIsRefusedByTheSocketsPermissionsAndThenByAppexd() async throws {
        _ = try await startDaemon()
        func psAsNobody() async throws -> CommandRunner.Result {
            let runner = CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/setpriv"), environment: appex.environment)
            return try await runner.run(["--reuid=65534", "--regid=65534", "--clear-groups", appex.executable.path, "ps"])
        }
        let blocked = try await psAsNobody()
        #expect(blocked.status != 0)
        #expect(blocked.standardError.contains("Permission denied") || blocked.standardError.contains("EACCES"),
                "the runtime folder is the user's alone (0700): \(blocked.standardError)")

        // Behind the folder's permissions, appexd checks the peer's uid from the kernel.
        let opened = [test.home.dataDirectory, test.home.runtimeDirectory.deletingLastPathComponent(), test.home.runtimeDirectory]
        for folder in opened { chmod(folder.path, 0o755) }
        chmod(test.home.daemonSocketURL.path, 0o777)
        let refused = try await psAsNobody()
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("appexd serves user 0 only; uid 65534 was refused"), "\(refused.standardError)")
        let served = try await appex.run(["ps"])
        #expect(served.status == 0, "appexd serves its own user still: \(served.standardError)")
    }
}
