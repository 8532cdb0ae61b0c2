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
        defer { python.finish() }
        try #require(python.waitUntilReady())
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

    /// What a program writes counts: its heap, and a shared memory file it fills. The files it
    /// maps and reads, as its code and libraries are, don't, however much of them is resident:
    /// an extension forked from the launcher maps the launcher's.
    @Test func theMemoryAProgramWritesCountsAndTheFilesItReadsDont() throws {
        let script = """
            import mmap, os, sys, tempfile
            with tempfile.TemporaryFile() as data:
                data.truncate(96 << 20)
                mapped = mmap.mmap(data.fileno(), 96 << 20, prot=mmap.PROT_READ)
                read = sum(mapped[offset] for offset in range(0, 96 << 20, 4096))
            heap = bytearray(b"x") * (16 << 20)
            memory = os.memfd_create("written")
            os.ftruncate(memory, 16 << 20)
            written = mmap.mmap(memory, 16 << 20)
            written.write(b"y" * (16 << 20))
            print("ready", flush=True)
            sys.stdin.readline()
            """
        let python = try PythonProgram(script)
        defer { python.finish() }
        try #require(python.waitUntilReady())
        let resident = try #require(ProcessMemory.residentBytes(of: python.process.processID))
        let footprint = try #require(ProcessMemory.footprint(of: [python.process.processID]))
        #expect(resident >= 128 << 20, "the file's pages are resident: \(resident >> 20) MiB")
        #expect(footprint >= 32 << 20, "the heap and the shared memory count: \(footprint >> 20) MiB")
        #expect(footprint < 64 << 20, "the 96 MiB file read doesn't: \(footprint >> 20) MiB of \(resident >> 20) MiB resident")
    }

    @Test func oneProcessIsWhatItWroteAndAGoneOneIsNil() throws {
        let own = try #require(ProcessMemory.ownedBytes(of: getpid()))
        let resident = try #require(ProcessMemory.residentBytes(of: getpid()))
        let footprint = try #require(ProcessMemory.footprint(of: [getpid()]))
        #expect(footprint.distance(to: own).magnitude < 16 << 20, "one process is measured by what it wrote")
        #expect(own > 0 && own < resident, "written \(own >> 10) KiB, resident \(resident >> 10) KiB")
        #expect((ProcessMemory.proportionalOwnedBytes(of: getpid()) ?? 0) > 0)
        #expect(ProcessMemory.ownedBytes(of: Int32.max) == nil)
        #expect(ProcessMemory.footprint(of: []) == nil)
        #expect(ProcessMemory.footprint(of: [Int32.max, Int32.max - 1]) == nil)
        #expect(ProcessMemory.residentBytes(of: Int32.max) == nil)
    }
}
