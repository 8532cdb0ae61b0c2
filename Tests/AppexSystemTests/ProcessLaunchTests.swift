import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// Spawning: the child gets exactly the descriptors asked for, a clean signal state and its
/// own session; exec failures throw with no process left behind; exits and signals are
/// reported. Serialized, so the child-process checks see only this suite's children.
@Suite(.serialized) struct ProcessLaunchTests {
    /// Runs `script` with /bin/sh, its standard output to a pipe, and returns the output and
    /// how the shell ended.
    func run(_ script: String, descriptors: [(FileDescriptor, Int32)] = [], directory: String? = nil,
             diesWithParent: Bool = false) throws -> (output: String, status: AppexSystem.ExitStatus?) {
        let output = try makePipe()
        let launch = ProcessLaunch(executable: "/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"],
                                   descriptors: [(output.write, 1)] + descriptors, directory: directory, diesWithParent: diesWithParent)
        let child = try launch.spawn()
        output.write.close()
        let text = try readText(output.read)
        child.waitForExit(timeoutMilliseconds: -1)
        return (text, child.reap())
    }

    /// The children of the calling thread. A synchronous test runs on one thread from start to
    /// end, and the kernel lists a child under the thread that forked it, so children other
    /// tests start in parallel never show up here.
    func threadChildren() throws -> [Int32] {
        let list = try String(contentsOfFile: "/proc/thread-self/children", encoding: .utf8)
        return list.split(separator: " ").compactMap { Int32($0) }
    }

    /// The numbers of the shell's own open descriptors, listed by `ls` while the shell waits.
    func shellDescriptors(_ output: String) -> Set<Int32> {
        Set(output.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) })
    }

    @Test func theChildHasExactlyTheMappedDescriptors() throws {
        let three = try makePipe()
        let four = try makePipe()
        // Descriptors without close-on-exec that were not asked for must not reach the child.
        var inheritable: [Int32] = [-1, -1]
        try #require(pipe(&inheritable) == 0)
        let noise = inheritable.map { FileDescriptor(owning: $0) }
        let (output, status) = try run("ls /proc/$$/fd; echo three >&3; echo four >&4",
                                       descriptors: [(three.write, 3), (four.write, 4)])
        three.write.close()
        four.write.close()
        #expect(status == .exited(0))
        #expect(shellDescriptors(output) == [0, 1, 2, 3, 4])
        #expect(try readText(three.read) == "three\n")
        #expect(try readText(four.read) == "four\n")
        withExtendedLifetime(noise) {}
    }

    @Test func descriptorsInTheGapsBetweenTargetsAreClosedToo() throws {
        // Targets 3 and 1000 leave a gap that holds nearly every descriptor this process has,
        // including one without close-on-exec: none of them may reach the child.
        var inheritable: [Int32] = [-1, -1]
        try #require(pipe(&inheritable) == 0)
        let noise = inheritable.map { FileDescriptor(owning: $0) }
        try #require(noise.allSatisfy { $0.rawValue > 3 && $0.rawValue < 1000 })
        let high = try makePipe()
        let (output, status) = try run("ls /proc/$$/fd", descriptors: [(high.write, 3), (high.write, 1000)])
        #expect(status == .exited(0))
        #expect(shellDescriptors(output) == [0, 1, 2, 3, 1000])
        withExtendedLifetime(noise) {}
    }

    @Test func unmappedStandardDescriptorsAreDevNull() throws {
        let (output, status) = try run("readlink /proc/$$/fd/0 /proc/$$/fd/2; read line; echo \"[$line]\"")
        #expect(status == .exited(0))
        #expect(output == "/dev/null\n/dev/null\n[]\n")
    }

    @Test func oneDescriptorMayBeMappedTwiceAndOverStandardInput() throws {
        let input = try makePipe()
        let side = try makePipe()
        try input.write.write(Array("piped in\n".utf8))
        input.write.close()
        let (output, status) = try run("cat; echo side >&5; echo side >&6",
                                       descriptors: [(input.read, 0), (side.write, 5), (side.write, 6)])
        side.write.close()
        #expect(status == .exited(0))
        #expect(output == "piped in\n")
        #expect(try readText(side.read) == "side\nside\n")
    }

    @Test func aMissingExecutableThrowsENOENTAndLeavesNoChild() throws {
        let before = try threadChildren()
        let error = #expect(throws: SystemError.self) {
            try ProcessLaunch(executable: "/nonexistent/appex-child").spawn()
        }
        #expect(error?.errno == ENOENT)
        #expect(error?.operation == "spawn")
        #expect(error?.subject == "/nonexistent/appex-child")
        // Children that other tests' tasks started on this thread may end meanwhile: only a new one counts.
        #expect(Set(try threadChildren()).isSubset(of: before), "the failed child was reaped, not left a zombie")
    }

    @Test func aFileThatIsNotExecutableThrowsEACCES() throws {
        let before = try threadChildren()
        let error = #expect(throws: SystemError.self) { try ProcessLaunch(executable: "/etc/passwd").spawn() }
        #expect(error?.errno == EACCES)
        #expect(try threadChildren() == before)
    }

    /// A copy of /bin/true in `folder`, and a descriptor that holds it open for writing.
    func busyExecutable(in folder: borrowing TemporaryDirectory) throws -> (path: String, writer: FileDescriptor) {
        let path = folder.url.appendingPathComponent("true").path
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: path)
        return (path, try FileDescriptor.open(path, flags: O_WRONLY | O_CLOEXEC))
    }

    @Test func anExecutableBusyForAMomentIsTriedAgain() throws {
        let folder = try TemporaryDirectory()
        let (path, writer) = try busyExecutable(in: folder)
        let closed = DispatchSemaphore(value: 0)
        Thread {
            usleep(100_000)
            writer.close()
            closed.signal()
        }.start()
        let child = try ProcessLaunch(executable: path).spawn()
        closed.wait()
        child.waitForExit(timeoutMilliseconds: -1)
        #expect(child.reap() == .exited(0))
    }

    @Test func anExecutableThatStaysBusyThrowsETXTBSYAndLeavesNoChild() throws {
        let folder = try TemporaryDirectory()
        let (path, writer) = try busyExecutable(in: folder)
        defer { writer.close() }
        let before = try threadChildren()
        let error = #expect(throws: SystemError.self) { try ProcessLaunch(executable: path).spawn() }
        #expect(error?.errno == ETXTBSY)
        #expect(error?.subject == path)
        #expect(try threadChildren() == before)
    }

    @Test func aMissingWorkingDirectoryThrowsAndLeavesNoChild() throws {
        let before = try threadChildren()
        let error = #expect(throws: SystemError.self) {
            try ProcessLaunch(executable: "/bin/true", directory: "/nonexistent/folder").spawn()
        }
        #expect(error?.errno == ENOENT)
        #expect(try threadChildren() == before)
    }

    @Test func aLiveChildIsListedUntilReaped() throws {
        let input = try makePipe()
        let child = try ProcessLaunch(executable: "/bin/cat", descriptors: [(input.read, 0)]).spawn()
        #expect(try threadChildren().contains(child.processID))
        #expect(!child.hasExited, "cat waits on the pipe we hold open")
        #expect(child.reap() == nil)
        input.write.close()
        child.waitForExit(timeoutMilliseconds: -1)
        #expect(child.hasExited)
        #expect(child.reap() == .exited(0))
        #expect(child.reap() == nil, "reaped once")
        #expect(try !threadChildren().contains(child.processID))
        #expect(!ResourceCounts.childProcesses().contains(child.processID))
    }

    @Test func exitStatusesAreReported() throws {
        #expect(try run("exit 3").status == .exited(3))
        #expect(try run("exit 0").status == .exited(0))
        #expect(try run("exit 255").status == .exited(255))
        #expect(AppexSystem.ExitStatus.exited(3).description == "exited with status 3")
    }

    @Test func signalsAreReported() throws {
        let folder = try TemporaryDirectory() // where a core file would go, if one were written
        let segv = try run("kill -SEGV $$", directory: folder.url.path).status
        guard case .signaled(SIGSEGV, _) = segv else {
            Issue.record("expected SIGSEGV, got \(String(describing: segv))")
            return
        }
        #expect(try run("kill -TERM $$").status == .signaled(SIGTERM, coreDumped: false))
        #expect(AppexSystem.ExitStatus.signaled(SIGSEGV, coreDumped: true).description == "killed by SIGSEGV (core dumped)")
        #expect(AppexSystem.ExitStatus.signaled(SIGKILL, coreDumped: false).description == "killed by SIGKILL")
        #expect(AppexSystem.ExitStatus.signalName(64) == "signal 64")
    }

    @Test func aSignalSentThroughThePidfdEndsTheChild() throws {
        let input = try makePipe()
        let child = try ProcessLaunch(executable: "/bin/cat", descriptors: [(input.read, 0)]).spawn()
        child.send(signal: SIGKILL)
        child.waitForExit(timeoutMilliseconds: -1)
        #expect(child.reap() == .signaled(SIGKILL, coreDumped: false))
        child.send(signal: SIGKILL) // gone and reaped: does nothing
    }

    @Test func theChildLeadsItsOwnSession() throws {
        let (output, status) = try run("echo $$; cut -d' ' -f6 /proc/$$/stat")
        #expect(status == .exited(0))
        let lines = output.split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        #expect(lines[0] == lines[1], "its session id is its own pid")
    }

    @Test func theChildStartsWithNoSignalBlockedOrIgnored() throws {
        // grep reads its own status: what exec kept of the spawned child's signal state.
        let output = try makePipe()
        let child = try ProcessLaunch(executable: "/bin/grep", arguments: ["-E", "^Sig(Blk|Ign):", "/proc/self/status"],
                                      descriptors: [(output.write, 1)]).spawn()
        output.write.close()
        let text = try readText(output.read)
        child.waitForExit(timeoutMilliseconds: -1)
        #expect(child.reap() == .exited(0))
        #expect(text == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")
    }

    @Test func argumentsEnvironmentAndDirectoryAreExactlyAsGiven() throws {
        let folder = try TemporaryDirectory()
        let output = try makePipe()
        let launch = ProcessLaunch(executable: "/usr/bin/env", arguments: [], environment: ["A": "1", "B": "two words", "EMPTY": ""],
                                   descriptors: [(output.write, 1)])
        let child = try launch.spawn()
        output.write.close()
        #expect(try readText(output.read) == "A=1\nB=two words\nEMPTY=\n")
        child.waitForExit(timeoutMilliseconds: -1)
        #expect(child.reap() == .exited(0))

        let (printed, status) = try run("pwd; echo \"$0|$#\"", directory: folder.url.path)
        #expect(status == .exited(0))
        #expect(printed == "\(folder.url.path)\n/bin/sh|0\n")
    }

    @Test func theAddressSpaceLimitIsTheChildsAndOnlyTheChilds() throws {
        let output = try makePipe()
        let limit: UInt64 = 3 << 30
        let child = try ProcessLaunch(executable: "/bin/grep", arguments: ["^Max address space", "/proc/self/limits"],
                                      descriptors: [(output.write, 1)], addressSpaceLimit: limit).spawn()
        output.write.close()
        let fields = try readText(output.read).split(whereSeparator: \.isWhitespace)
        child.waitForExit(timeoutMilliseconds: -1)
        #expect(child.reap() == .exited(0))
        #expect(fields.dropFirst(3).prefix(2) == ["\(limit)", "\(limit)"], "soft and hard: \(fields)")
        var ours = rlimit()
        getrlimit(Int32(RLIMIT_AS.rawValue), &ours)
        #expect(ours.rlim_cur != rlim_t(limit), "the spawning process keeps its own")
    }

    @Test func diesWithParentStillSpawns() throws {
        let (output, status) = try run("echo alive", diesWithParent: true)
        #expect(output == "alive\n")
        #expect(status == .exited(0))
    }
}
