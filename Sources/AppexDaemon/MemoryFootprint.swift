import AppexSystem
import Foundation

/// A process's resident memory, read from /proc: the footprint the memory limit is checked
/// against, as Apple's jetsam checks an extension's.
enum MemoryFootprint {
    private static let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))

    /// The footprint of the extension `process` runs: its own resident bytes, or where it
    /// is the init of a sandbox's pid namespace (it has an exit report), those of the
    /// processes under it, which are the extension and whatever it started. Nil if it is gone.
    static func residentBytes(of process: ProcessDescriptor) -> UInt64? {
        guard process.exitReport != nil else { return residentBytes(of: process.processID) }
        let program = ProcessTree.descendants(of: process.processID).compactMap(residentBytes(of:))
        return program.isEmpty ? residentBytes(of: process.processID) : program.reduce(0, +)
    }

    /// Resident bytes of `pid` (the second field of /proc/PID/statm), or nil if it is gone.
    static func residentBytes(of pid: Int32) -> UInt64? {
        let descriptor = open("/proc/\(pid)/statm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = UInt64(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * pageSize
    }
}
