import AppexSystem
import Foundation
import Glibc
import Testing

/// Reading the files the kernel writes as they are read: all of one, however long; an empty
/// one as empty; a missing one as nothing.
struct KernelFileTests {
    /// A process's memory map in detail (/proc/PID/smaps), which says its size is 0 and
    /// comes a page or so a read, comes back whole, each mapping of its summary (maps) in it:
    /// Foundation's reader stops after its first read of such a file. The limit holds.
    @Test func aProcFileLongerThanAReadIsReadWhole() throws {
        let child = try ProcessLaunch(executable: "/bin/sleep", arguments: ["60"], environment: ["LONG": String(repeating: "x", count: 20_000)]).spawn()
        defer {
            child.send(signal: SIGKILL)
            child.waitForExit(timeoutMilliseconds: 10_000)
            _ = child.reap()
        }
        // Stopped, so its mappings hold still between the two reads: as it starts, the loader
        // maps and splits them (a full run once read the summary before libc was mapped).
        child.send(signal: SIGSTOP)
        try #require(Self.waitUntilStopped(child.processID), "the child stopped")
        let maps = try #require(KernelFile.text(at: "/proc/\(child.processID)/maps"))
        let smaps = try #require(KernelFile.text(at: "/proc/\(child.processID)/smaps"))
        let mappings = maps.split(separator: "\n")
        #expect(mappings.count > 5 && smaps.utf8.count > 8192 && smaps.hasSuffix("\n"), "\(mappings.count) mappings, \(smaps.utf8.count) bytes")
        let lines = Set(smaps.split(separator: "\n"))
        #expect(mappings.allSatisfy(lines.contains), "every mapping is in the detail")
        #expect(KernelFile.text(at: "/proc/\(child.processID)/environ", limit: 5000)?.utf8.count == 5000)
    }

    /// Waits up to 10 s for `pid` to show as stopped (state T in /proc/PID/stat).
    static func waitUntilStopped(_ pid: Int32) -> Bool {
        for _ in 0..<1000 {
            let stat = KernelFile.text(at: "/proc/\(pid)/stat") ?? ""
            if let close = stat.lastIndex(of: ")"), stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first == "T" { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func anEmptyFileIsEmptyAndAMissingOneIsNil() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kernel-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = folder.appendingPathComponent("empty")
        #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        #expect(KernelFile.text(at: empty.path) == "")
        #expect(KernelFile.text(at: folder.appendingPathComponent("missing").path) == nil)
        #expect(KernelFile.text(at: folder.path) == nil, "a folder can't be read")
    }
}
