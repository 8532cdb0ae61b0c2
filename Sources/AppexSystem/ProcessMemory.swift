import Glibc

/// What processes hold in memory, read from /proc: the footprint an extension's memory
/// limit is checked against, as Apple's jetsam checks an extension's.
public enum ProcessMemory {
    private static let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))

    /// The footprint of a program that runs as `processes`; nil if they are all gone.
    ///
    /// One process: its resident bytes. Several: each one's proportional share of its
    /// resident pages (Pss), summed, so the pages a forked child still shares with its
    /// parent count once and not once per process. Resident sizes summed would make a
    /// program that forks 32 idle children look 32 times its size.
    public static func footprint(of processes: [Int32]) -> UInt64? {
        guard processes.count > 1 else { return processes.first.flatMap(residentBytes(of:)) }
        let shares = processes.compactMap { proportionalBytes(of: $0) ?? residentBytes(of: $0) }
        return shares.isEmpty ? nil : shares.reduce(0, +)
    }

    /// Resident bytes of `pid` (the second field of /proc/PID/statm), or nil if it is gone.
    public static func residentBytes(of pid: Int32) -> UInt64? {
        guard let text = contents(of: "/proc/\(pid)/statm", limit: 128) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * pageSize
    }

    /// `pid`'s proportional set size (the `Pss:` line of /proc/PID/smaps_rollup): its
    /// resident pages, each shared one divided by the number of processes that map it.
    /// Nil if it is gone or not ours to read. Costs a walk of its page tables, about ten
    /// times a read of statm.
    public static func proportionalBytes(of pid: Int32) -> UInt64? {
        guard let text = contents(of: "/proc/\(pid)/smaps_rollup", limit: 4096) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Pss:") {
            guard let kibibytes = line.split(separator: " ").dropFirst().first.flatMap({ UInt64($0) }) else { return nil }
            return kibibytes * 1024
        }
        return nil
    }

    /// Up to `limit` bytes of a /proc file; nil if it can't be read or is empty.
    private static func contents(of path: String, limit: Int) -> String? {
        guard let text = KernelFile.text(at: path, limit: limit), !text.isEmpty else { return nil }
        return text
    }
}
