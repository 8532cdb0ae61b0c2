import AppexSystem
import Foundation
import Glibc
import Testing

/// Cgroups on this machine: a process over its memory limit is ended by the kernel and
/// counted, one within it runs to the end, a fork past the process cap is refused and
/// counted, and the cgroup goes when its process has. Each is skipped where its controller
/// can't be delegated; `appex doctor` says why.
@Suite struct CgroupTests {
    static let parent = try? Cgroup.Parent.discover(.memory).get()
    static let pidsParent = try? Cgroup.Parent.discover(.pids).get()

    /// A new cgroup under `parent`, with `limit` applied.
    func cgroup(under parent: Cgroup.Parent?, _ limit: (Cgroup) throws -> Void) throws -> Cgroup {
        let cgroup = try Cgroup.create(named: "appex-test-\(UUID().uuidString)", under: #require(parent))
        do { try limit(cgroup) } catch { cgroup.remove(); throw error }
        return cgroup
    }

    /// Runs `script` with /bin/sh inside `cgroup`: the shell waits on its standard input
    /// until it has been moved in, so everything the script does is accounted there.
    func run(_ script: String, in cgroup: Cgroup) throws -> AppexSystem.ExitStatus? {
        let gate = try makePipe()
        let child = try ProcessLaunch(executable: "/bin/sh", arguments: ["-c", "read go; \(script)"],
                                      environment: ["PATH": "/usr/bin:/bin"], descriptors: [(gate.read, 0)]).spawn()
        gate.read.close()
        try cgroup.add(pid: child.processID)
        try gate.write.write(Array("go\n".utf8))
        gate.write.close()
        try #require(child.waitForExit(timeoutMilliseconds: 20_000), "the child did not end within 20 s")
        return child.reap()
    }

    @Test(.enabled(if: parent != nil, "no memory cgroup can be made here"))
    func aProcessOverItsLimitIsKilledByTheKernelAndCounted() throws {
        let cgroup = try cgroup(under: Self.parent) { try $0.limitMemory(to: 32 << 20) }
        defer { cgroup.remove() }
        let status = try run("exec dd if=/dev/zero of=/dev/null bs=256M count=1 2>/dev/null", in: cgroup)
        #expect(status == .signaled(SIGKILL, coreDumped: false))
        #expect(cgroup.oomKills >= 1)
    }

    @Test(.enabled(if: parent != nil, "no memory cgroup can be made here"))
    func aProcessWithinItsLimitRunsAndTheCgroupIsRemovedAfterIt() throws {
        let cgroup = try cgroup(under: Self.parent) { try $0.limitMemory(to: 64 << 20) }
        let status = try run("exec dd if=/dev/zero of=/dev/null bs=1M count=4 2>/dev/null", in: cgroup)
        #expect(status == .exited(0))
        #expect(cgroup.oomKills == 0)
        #expect((cgroup.peakBytes ?? 0) > 0)
        cgroup.remove()
        #expect(!FileManager.default.fileExists(atPath: cgroup.url.path))
    }

    @Test(.enabled(if: pidsParent != nil, "no pids cgroup can be made here"))
    func aForkPastTheProcessCapIsRefusedAndCounted() throws {
        let cgroup = try cgroup(under: Self.pidsParent) { try $0.limitProcesses(to: 4) }
        defer { cgroup.remove() }
        // Python is one; it forks children that wait until a fork fails, and says how many it made.
        let program = """
            import os, signal, sys
            sys.stdin.readline()
            children, refused = [], "none"
            try:
                for _ in range(20):
                    pid = os.fork()
                    if pid == 0:
                        signal.pause()
                        os._exit(0)
                    children.append(pid)
            except OSError as error:
                refused = os.strerror(error.errno)
            print(len(children), refused)
            for pid in children:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            """
        let python = try PythonProgram(program)
        try cgroup.add(pid: python.process.processID)
        try python.stdin.write(Array("go\n".utf8))
        python.stdin.close()
        try #require(python.process.waitForExit(timeoutMilliseconds: 20_000), "the child did not end within 20 s")
        #expect(python.process.reap() == .exited(0))
        let said = try readText(python.stdout)
        #expect(said == "3 Resource temporarily unavailable\n", "Python and 3 children make 4")
        #expect(cgroup.processLimitHits >= 1)
    }

    @Test func discoveryNamesTheHierarchyOrSaysWhyThereIsNone() {
        for controller in Cgroup.Controller.allCases {
            switch Cgroup.Parent.discover(controller) {
            case .success(let parent):
                #expect(FileManager.default.fileExists(atPath: parent.url.path))
                #expect(parent.controllers == [controller])
            case .failure(let unavailable):
                #expect(unavailable.reason.contains(controller.rawValue))
            }
        }
        let (parents, unavailable) = Cgroup.Parent.discover(Cgroup.Controller.allCases)
        #expect(Set(parents.flatMap(\.controllers)).union(unavailable.keys) == Set(Cgroup.Controller.allCases))
    }
}
