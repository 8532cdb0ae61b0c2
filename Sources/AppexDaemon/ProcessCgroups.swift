import AppexSystem

/// The cgroups that hold one extension process and everything it starts: one folder on
/// cgroup v2, one per controller on v1.
struct ProcessCgroups: Sendable {
    let cgroups: [Cgroup]

    /// How many times the kernel's OOM killer ended one of its processes.
    var oomKills: Int {
        cgroups.filter { $0.controllers.contains(.memory) }.map(\.oomKills).reduce(0, +)
    }

    /// The most memory its processes used, where the kernel says.
    var peakBytes: UInt64? {
        cgroups.first { $0.controllers.contains(.memory) }?.peakBytes
    }

    /// How many of its forks and new threads were refused at its process cap.
    var processLimitHits: Int {
        cgroups.filter { $0.controllers.contains(.pids) }.map(\.processLimitHits).reduce(0, +)
    }

    /// Removes every cgroup whose processes have all exited.
    func remove() {
        cgroups.forEach { $0.remove() }
    }
}
