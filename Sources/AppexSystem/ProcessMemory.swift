import Glibc

/// What processes hold in memory, read from /proc: the footprint an extension's memory
/// limit is checked against, as Apple's jetsam checks an extension's.
public enum ProcessMemory {
    private static let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))

    /// The footprint of a program that runs as `processes`; nil if they are all gone.
    ///
    /// What the program has written, as Apple's footprint counts an extension's: its
    /// anonymous and shared-memory pages, resident or swapped out, and not the files it maps,
    /// its code and its libraries, which it reads and can't grow. An extension forked from the
    /// launcher maps the launcher's libraries, already resident, and its resident size
    /// counted 20 MiB and more of them (a System Load widget went past its 32 MiB that way).
    ///
    /// One process: ``ownedBytes(of:)``. Several: each one's proportional share of those
    /// pages, summed (``proportionalOwnedBytes(of:)``), so the pages a forked child still
    /// shares with its parent count once and not once per process. Sizes summed would make a
    /// program that forks 32 idle children look 32 times its size.
    public static func footprint(of processes: [Int32]) -> UInt64? {
        guard processes.count > 1 else { return processes.first.flatMap(ownedBytes(of:)) }
        let shares = processes.compactMap { proportionalOwnedBytes(of: $0) ?? ownedBytes(of: $0) }
        return shares.isEmpty ? nil : shares.reduce(0, +)
    }

    /// The memory `pid` has written: its resident anonymous and shared-memory pages and its
    /// swapped-out ones (RssAnon, RssShmem and VmSwap of /proc/PID/status, counters the
    /// kernel keeps, as cheap to read as statm). Nil if it is gone.
    public static func ownedBytes(of pid: Int32) -> UInt64? {
        guard let text = contents(of: "/proc/\(pid)/status", limit: 4096) else { return nil }
        let counted = sum(of: ["RssAnon:", "RssShmem:", "VmSwap:"], in: text)
        return counted.found == 0 ? nil : counted.kibibytes * 1024
    }

    /// `pid`'s proportional share of the memory it has written (Pss_Anon, Pss_Shmem and
    /// SwapPss of /proc/PID/smaps_rollup): each page it shares divided by the number of
    /// processes that map it. Nil if it is gone, not ours to read, or the kernel is older
    /// than 5.8, which doesn't break Pss down. Costs a walk of its page tables, about ten
    /// times a read of status.
    public static func proportionalOwnedBytes(of pid: Int32) -> UInt64? {
        guard let text = contents(of: "/proc/\(pid)/smaps_rollup", limit: 4096) else { return nil }
        let counted = sum(of: ["Pss_Anon:", "Pss_Shmem:", "SwapPss:"], in: text)
        return counted.found < 2 ? nil : counted.kibibytes * 1024
    }

    /// The sum of the lines of `text` that start with one of `names`, each a number of
    /// kibibytes, and how many of them there were.
    private static func sum(of names: [String], in text: String) -> (kibibytes: UInt64, found: Int) {
        var total: UInt64 = 0
        var found = 0
        for line in text.split(separator: "\n") {
            guard let name = names.first(where: { line.hasPrefix($0) }),
                  let kibibytes = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap({ UInt64($0) })
            else { continue }
            total += kibibytes
            found += 1
        }
        return (total, found)
    }

    /// Resident bytes of `pid` (the second field of /proc/PID/statm), or nil if it is gone.
    public static func residentBytes(of pid: Int32) -> UInt64? {
        guard let text = contents(of: "/proc/\(pid)/statm", limit: 128) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * pageSize
    }

    /// Up to `limit` bytes of a /proc file; nil if it can't be read or is empty.
    private static func contents(of path: String, limit: Int) -> String? {
        guard let text = KernelFile.text(at: path, limit: limit), !text.isEmpty else { return nil }
        return text
    }
}
