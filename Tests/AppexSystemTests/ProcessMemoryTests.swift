import AppexSystem
import Glibc
import Testing

/// The footprint an extension's memory limit is checked against, with real processes.
struct ProcessMemoryTests {
    @Test func aProgramThatForksIdleChildrenCountsTheMemoryTheyShareOnce() throws {
        // Python touches 64 MiB, forks 8 children that wait, says so, and ends them when told.
        let script = """
            import os, signal, sys
            held = bytearray(b"x") * (64 << 20)
            children = []
            for _ in range(8):
                pid = os.fork()
                if pid == 0:
                    signal.pause()
                    os._exit(0)
                children.append(pid)
            print("ready", flush=True)
            sys.stdin.readline()
            for pid in children:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            """
        let python = try PythonProgram(script)
        defer {
            python.stdin.close()
            _ = python.process.waitForExit(timeoutMilliseconds: 20_000)
            _ = python.process.reap()
        }
        var ready = [UInt8](repeating: 0, count: 6)
        #expect(read(python.stdout.rawValue, &ready, ready.count) == 6)
        let program = [python.process.processID] + ProcessTree.descendants(of: python.process.processID)
        try #require(program.count == 9, "\(program)")

        let parent = try #require(ProcessMemory.residentBytes(of: python.process.processID))
        let footprint = try #require(ProcessMemory.footprint(of: program))
        let residentSum = program.compactMap(ProcessMemory.residentBytes(of:)).reduce(0, +)
        #expect(parent >= 64 << 20)
        #expect(footprint >= 64 << 20, "the 64 MiB counts once")
        #expect(footprint < parent * 2, "footprint \(footprint >> 20) MiB, parent \(parent >> 20) MiB")
        #expect(residentSum > parent * 4, "resident sizes summed count it in every child")
    }

    @Test func oneProcessIsItsResidentSizeAndAGoneOneIsNil() throws {
        let own = try #require(ProcessMemory.residentBytes(of: getpid()))
        let footprint = try #require(ProcessMemory.footprint(of: [getpid()]))
        #expect(footprint.distance(to: own).magnitude < 16 << 20, "one process is measured by its resident size")
        #expect((ProcessMemory.proportionalBytes(of: getpid()) ?? 0) > 0)
        #expect(ProcessMemory.footprint(of: []) == nil)
        #expect(ProcessMemory.footprint(of: [Int32.max, Int32.max - 1]) == nil)
        #expect(ProcessMemory.residentBytes(of: Int32.max) == nil)
    }
}
