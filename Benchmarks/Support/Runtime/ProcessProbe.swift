import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the runtime benchmarks read about processes: the monotonic clock the benchmark
/// extension reports in, resident memory from `/proc`, and whether a process is gone.
public enum ProcessProbe {
    /// CLOCK_MONOTONIC in nanoseconds: the clock the benchmark extension stamps `beginRequest` with.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The memory fields of `/proc/PID/status`, in KiB: `VmRSS` and its parts `RssAnon`,
    /// `RssFile` and `RssShmem`; and `Pss` from `/proc/PID/smaps_rollup`, which shares each
    /// page among the processes that map it. Nil if the process is gone.
    public static func memoryKiB(of pid: Int32) -> [String: Int]? {
        guard let status = procFile("/proc/\(pid)/status") else { return nil }
        let rollup = procFile("/proc/\(pid)/smaps_rollup") ?? ""
        var fields: [String: Int] = [:]
        for line in (status + rollup).split(separator: "\n") where line.hasPrefix("VmRSS:") || line.hasPrefix("Rss") || line.hasPrefix("Pss:") {
            // "VmRSS:\t    4236 kB"
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" })
            if parts.count >= 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        return fields["VmRSS"] == nil ? nil : fields
    }

    /// CPU time `pid` has used, user and system, all threads, in microseconds (from
    /// `/proc/PID/stat`, whose resolution is a clock tick, 10 ms), or nil if it is gone.
    public static func cpuMicroseconds(of pid: Int32) -> Int? {
        guard let stat = procFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        // After the command name: state (field 3), …, utime (14), stime (15).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return (user + system) * 1_000_000 / sysconf(Int32(_SC_CLK_TCK))
    }

    /// How many times the threads of `pid` now alive went to sleep waiting (voluntary context
    /// switches, summed over `/proc/PID/task/*/status`): about one per wakeup, so per thread hop.
    public static func voluntarySwitches(of pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let status = procFile("/proc/\(pid)/task/\(task)/status") ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            return total + (line.flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0)
        }
    }

    /// The text of a `/proc` file, read to its end with read(2): these files report a size of
    /// 0, so readers that trust the size read nothing. Nil if it can't be opened.
    private static func procFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}

/// Why a runtime benchmark could not measure what it meant to.
public struct BenchmarkFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
