import AppexSystem
import Foundation
import Glibc
import Testing

/// Memory cgroups on this machine: a process over its cgroup's limit is ended by the kernel
/// and counted, one within it runs to the end, and the cgroup goes when its process has.
/// Skipped where no memory controller can be delegated; `appex doctor` says why.
@Suite struct MemoryCgroupTests {
    static let parent = try? MemoryCgroup.Parent.discover().get()

    /// Runs `script` with /bin/sh inside `cgroup`: the shell waits on its standard input
    /// until it has been moved in, so everything the script does is accounted there.
    func run(_ script: String, in cgroup: MemoryCgroup) throws -> AppexSystem.ExitStatus? {
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
        let cgroup = try MemoryCgroup.create(named: "appex-test-\(UUID().uuidString)", under: #require(Self.parent), limitBytes: 32 << 20)
        defer { cgroup.remove() }
        let status = try run("exec dd if=/dev/zero of=/dev/null bs=256M count=1 2>/dev/null", in: cgroup)
        #expect(status == .signaled(SIGKILL, coreDumped: false))
        #expect(cgroup.oomKills >= 1)
    }

    @Test(.enabled(if: parent != nil, "no memory cgroup can be made here"))
    func aProcessWithinItsLimitRunsAndTheCgroupIsRemovedAfterIt() throws {
        let cgroup = try MemoryCgroup.create(named: "appex-test-\(UUID().uuidString)", under: #require(Self.parent), limitBytes: 64 << 20)
        let status = try run("exec dd if=/dev/zero of=/dev/null bs=1M count=4 2>/dev/null", in: cgroup)
        #expect(status == .exited(0))
        #expect(cgroup.oomKills == 0)
        #expect((cgroup.peakBytes ?? 0) > 0)
        cgroup.remove()
        #expect(!FileManager.default.fileExists(atPath: cgroup.url.path))
    }

    @Test func discoveryNamesTheHierarchyOrSaysWhyThereIsNone() {
        switch MemoryCgroup.Parent.discover() {
        case .success(let parent):
            #expect(FileManager.default.fileExists(atPath: parent.url.path))
        case .failure(let unavailable):
            #expect(!unavailable.reason.isEmpty)
        }
    }
}
