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
    @Test(.enabled(if: geteuid() == 0, "choosing a process's pid (clone3's set_tid) needs root"))
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
                "pid \(connector.processID) runs the installed app, so the pid alone would pass for it; it runs \(ProcessTree.executablePath(of: connector.processID) ?? "nothing")")

        let answer = try await client.daemon.call { .groupContainer(GroupContainer(call: $0, groupIdentifier: Self.group)) }
        guard case .groupContainerResult(let result) = answer.message else {
            Issue.record("appexd answered \(answer.message.name)")
            return
        }
        #expect(result.path.isEmpty, "no container for a process that has ended")
        #expect(result.reason.contains("pid \(connector.processID) has exited"), "\(result.reason)")
        #expect(ProcessTree.executablePath(of: connector.processID) == app.resolvingSymlinksInPath().path,
                "the app still held the pid when appexd answered")
    }
}

/// A process started with a pid of the test's choosing, once that pid is free: `clone3` with
/// `set_tid` (Linux 5.5, and root) asks the kernel for exactly that pid, and fails with EEXIST
/// while another process holds it. Setting `/proc/sys/kernel/ns_last_pid` and forking, as this
/// did at first, raced every other process forking meanwhile, and in a whole sanitized run it
/// missed a thousand tries in a row. It waits up to 60 s for the pid to be free:
/// pids wrap at `pid_max` (32,768 on the development machine), and a test run goes through many.
private struct PidTaker: Sendable {
    let process: ProcessDescriptor
    /// The read end of the started program's standard output, open as long as the program runs:
    /// closed, the program's first line would meet EPIPE (Python ignores SIGPIPE, and the program
    /// inherits that), FileHandle's write would trap, and the pid would be free again.
    let output: FileDescriptor

    init(pid: Int32, running arguments: [String]) throws {
        let output = try FileDescriptor.pipe()
        self.output = output.read
        // Why an exec failed goes to the test's standard error.
        let errors = FileDescriptor(owning: dup(STDERR_FILENO))
        process = try ProcessLaunch(executable: "/usr/bin/python3", arguments: ["-I", "-c", """
            import ctypes, errno, os, sys, time
            pid, arguments = int(sys.argv[1]), sys.argv[2:]
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            chosen = (ctypes.c_int * 1)(pid)
            # struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal (SIGCHLD), stack,
            # stack_size, tls, set_tid, set_tid_size, cgroup
            clone_args = (ctypes.c_uint64 * 11)(0, 0, 0, 0, 17, 0, 0, 0, ctypes.addressof(chosen), 1, 0)
            deadline = time.monotonic() + 60
            while True:
                child = libc.syscall(435, ctypes.byref(clone_args), ctypes.c_size_t(ctypes.sizeof(clone_args)))
                if child == 0:
                    # The test process has just copied the app in; a child another of its threads
                    # forked meanwhile may hold the copy open until it execs (ETXTBSY).
                    while True:
                        try:
                            os.execv(arguments[0], arguments)
                        except OSError as failure:
                            if failure.errno != errno.ETXTBSY or time.monotonic() > deadline:
                                print("exec: " + failure.strerror, file=sys.stderr, flush=True)
                                os._exit(127)
                            time.sleep(0.01)
                if child > 0:
                    break
                error = ctypes.get_errno()
                if error != errno.EEXIST or time.monotonic() > deadline:
                    print("missed: " + os.strerror(error), flush=True)
                    sys.exit(1)
                time.sleep(0.01)
            print(child, flush=True)
            os.waitpid(child, 0)
            """, String(pid)] + arguments, descriptors: [(output.write, 1), (errors, 2)]).spawn()
        output.write.close()
        errors.close()
        var said = [UInt8](repeating: 0, count: 32)
        let count = read(self.output.rawValue, &said, said.count)
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
