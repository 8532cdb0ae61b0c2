import AppexCore
import AppexIPC
import AppexSystem
import AppexTesting
import AppexWire
import Foundation
import Glibc
import Testing

/// A connection outlives the process that made it: passed to another process, or inherited.
/// Once that process has ended, its pid is free for the kernel to hand out again, here to an
/// installed app entitled to the group. appexd knows its peer by the process, not the pid.
extension GroupContainerTests {
    @Test(.enabled(if: geteuid() == 0, "choosing the next pid (/proc/sys/kernel/ns_last_pid) needs root"))
    func aConnectionWhoseProcessEndedIsNotTakenForTheAppThatGotItsPid() async throws {
        let app = try await installApp("com.example.grouped", groups: [Self.group])

        // A process connects to appexd, says Hello, and hands the connection to this one.
        let (mine, theirs) = try UnixSocket.pair()
        let stdin = try FileDescriptor.pipe()
        let hello = try WireMessage.hello(RawClient.hello()).frameBytes().map { String(format: "%02x", $0) }.joined()
        let connector = try ProcessLaunch(executable: "/usr/bin/python3", arguments: ["-I", "-c", """
            import socket, sys
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(sys.argv[1])
            connection.sendall(bytes.fromhex(sys.argv[2]))
            socket.send_fds(socket.socket(fileno=3), [b"c"], [connection.fileno()])
            sys.stdin.read()
            """, world.test.home.daemonSocketURL.path, hello], descriptors: [(stdin.read, 0), (theirs, 3)]).spawn()
        stdin.read.close()
        theirs.close()
        let received = try await onThread { () throws -> [FileDescriptor] in
            var byte: UInt8 = 0
            var descriptors: [FileDescriptor] = []
            _ = try withUnsafeMutableBytes(of: &byte) { try UnixSocket.receive(mine, into: $0, descriptors: &descriptors) }
            return descriptors
        }
        let client = try await RawClient.welcomed(over: try #require(received.first, "the connection came"))

        // It ends, and an installed app entitled to the group starts with its pid.
        stdin.write.close()
        #expect(connector.waitForExit(timeoutMilliseconds: 30_000))
        _ = connector.reap()
        let held = world.test.scratch.appendingPathComponent("held")
        let pid = connector.processID
        let taker = try await onThread { try PidTaker(pid: pid, running: [app.path, "hold-write", held.path]) }
        defer { taker.end() }
        #expect(await eventually(seconds: 30) { ProcessTree.executablePath(of: connector.processID) == app.resolvingSymlinksInPath().path },
                "pid \(connector.processID) runs the installed app, so the pid alone would pass for it")

        let answer = try await client.daemon.call { .groupContainer(GroupContainer(call: $0, groupIdentifier: Self.group)) }
        guard case .groupContainerResult(let result) = answer.message else {
            Issue.record("appexd answered \(answer.message.name)")
            return
        }
        #expect(result.path.isEmpty, "no container for a process that has ended")
        #expect(result.reason.contains("pid \(connector.processID) has exited"), "\(result.reason)")
    }
}

/// A process started with a pid of the test's choosing, once that pid is free: the kernel
/// hands out the pid after the last one it handed out (`/proc/sys/kernel/ns_last_pid`), so
/// that is set first. Another process forking at that moment may take the pid; then it
/// tries again, up to a thousand times.
private struct PidTaker: Sendable {
    let process: ProcessDescriptor

    init(pid: Int32, running arguments: [String]) throws {
        let output = try FileDescriptor.pipe()
        process = try ProcessLaunch(executable: "/usr/bin/python3", arguments: ["-I", "-c", """
            import os, sys
            pid, arguments = int(sys.argv[1]), sys.argv[2:]
            for _ in range(1000):
                with open("/proc/sys/kernel/ns_last_pid", "w") as last:
                    last.write(str(pid - 1))
                child = os.fork()
                if child == 0:
                    if os.getpid() == pid:
                        os.execv(arguments[0], arguments)
                    os._exit(0)
                if child == pid:
                    print(child, flush=True)
                    os.waitpid(child, 0)
                    sys.exit(0)
                os.waitpid(child, 0)
            print("missed", flush=True)
            """, String(pid)] + arguments, descriptors: [(output.write, 1)]).spawn()
        output.write.close()
        var said = [UInt8](repeating: 0, count: 32)
        let count = read(output.read.rawValue, &said, said.count)
        // The started program may have written after the pid, in the same pipe.
        let line = String(decoding: said.prefix(max(count, 0)), as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard Int32(line) == pid else {
            end()
            throw WorldError("no process could be started with pid \(pid): \(line.isEmpty ? "(nothing said)" : line)")
        }
    }

    /// Ends the process with the chosen pid, and so the one that started it.
    func end() {
        for child in ProcessTree.children(of: process.processID) { kill(child, SIGKILL) }
        process.send(signal: SIGKILL)
        process.waitForExit(timeoutMilliseconds: 10_000)
        _ = process.reap()
    }
}
