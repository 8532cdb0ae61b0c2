import AppexSystem
/// The hard limits under the footprint watch, from a point's memory limit.
///
/// The watch ends a process at its point's limit, with a clear reason, within one tick. The
/// cgroup's limit (``hardLimit(for:)``) sits a little above that, so it acts only on a
/// process that allocates faster than the watch looks; the kernel then ends it, and
/// ``ProcessCgroups/oomKills`` tells that apart from any other SIGKILL.
///
/// In a sanitized build, what the sanitizer adds to every process (``allowance``) is not
/// counted against either, so a sanitized test run meets the limits an ordinary one does.
enum MemoryLimits {
    /// The hard limit for a point's `limit`: a quarter more, and at least 16 MiB more.
    static func hardLimit(for limit: Int) -> Int {
        limit + max(limit / 4, 16 << 20)
    }

    /// Resident memory no limit counts: ``Sanitizers/residentAllowance``, 0 in an ordinary build.
    static let allowance = UInt64(Sanitizers.residentAllowance)

    /// The part of a footprint of `bytes` that counts against a limit.
    static func counted(_ bytes: UInt64) -> UInt64 {
        bytes > allowance ? bytes - allowance : 0
    }

    /// The cgroup's memory limit for a point's `limit`: the hard limit, plus ``allowance``.
    static func cgroupLimit(for limit: Int) -> Int {
        hardLimit(for: limit) + Int(allowance)
    }

    /// How a memory limit's message mentions ``allowance``: not at all in an ordinary build.
    static var allowanceNote: String {
        allowance == 0 ? "" : ", not counting the \(allowance >> 20) MiB its sanitizer adds"
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
