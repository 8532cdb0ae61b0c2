import AppexSystem
/// The hard limits under the footprint watch, from a point's memory limit.
///
/// The watch ends a process at its point's limit, with a clear reason, within one tick. The
/// cgroup's limit (``hardLimit(for:)``) sits a little above that, so it acts only on a
/// process that allocates faster than the watch looks; the kernel then ends it, and
/// ``ProcessCgroups/oomKills`` tells that apart from any other SIGKILL.
enum MemoryLimits {
    /// The cgroup limit for a point's `limit`: a quarter more, and at least 16 MiB more.
    static func hardLimit(for limit: Int) -> Int {
        limit + max(limit / 4, 16 << 20)
    }

    /// Address space that is not memory, which an extension maps whatever it does: its 78 MB
    /// executable, a reserved 8 MiB stack per thread, and a reserved 64 MiB per malloc arena
    /// (up to 16 on 2 cores). 0.3 GiB in an idle extension; well under 4 GiB in a busy one.
    static let addressSpaceAllowance: UInt64 = 4 << 30

    /// The RLIMIT_AS backstop for a point's `limit`: the hard limit plus
    /// ``addressSpaceAllowance``. It is coarse, since address space is not memory; it stops
    /// an extension from mapping tens of GiB at once where no cgroup holds it. None in a
    /// sanitized build (``Sanitizers/areActive``), whose extensions reserve terabytes of
    /// shadow memory as they start.
    static func addressSpaceLimit(for limit: Int) -> UInt64? {
        Sanitizers.areActive ? nil : UInt64(hardLimit(for: limit)) + addressSpaceAllowance
    }
}
