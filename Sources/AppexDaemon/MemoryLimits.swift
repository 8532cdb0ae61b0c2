import AppexSystem
import Foundation
import Glibc

/// The hard memory limit under the footprint watch: each extension process in a memory
/// cgroup of its own, where the machine allows one.
///
/// The watch ends a process at its point's limit, with a clear reason, within one tick. The
/// cgroup's limit sits a little above that, so it acts only on a process that allocates
/// faster than the watch looks; the kernel then ends it, and ``memoryLimitKill(of:)`` tells
/// that apart from any other SIGKILL.
struct MemoryLimits: Sendable {
    /// Where cgroups are made, or why they can't be.
    let parent: Result<MemoryCgroup.Parent, CgroupUnavailable>
    /// Where processes are moved into their cgroups, one at a time, off the request's path.
    private let queue = DispatchQueue(label: "appex-memory-cgroups")
    private static let prefix = "appex-"

    init(parent: Result<MemoryCgroup.Parent, CgroupUnavailable> = MemoryCgroup.Parent.discover()) {
        self.parent = parent
        if case .success(let found) = parent { Self.removeStale(under: found) }
    }

    /// Whether processes get a cgroup here.
    var isAvailable: Bool {
        if case .success = parent { return true }
        return false
    }

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
    /// an extension from mapping tens of GiB at once where no cgroup holds it.
    static func addressSpaceLimit(for limit: Int) -> UInt64 {
        UInt64(hardLimit(for: limit)) + addressSpaceAllowance
    }

    /// Puts `process` in a new cgroup capped at the hard limit for `limit`. Returns nil,
    /// and says why on stderr, if it can't; the footprint watch still applies.
    func confine(_ process: ProcessDescriptor, limit: Int, label: String) -> MemoryCgroup? {
        guard case .success(let parent) = parent else { return nil }
        do {
            let cgroup = try MemoryCgroup.create(named: "\(Self.prefix)\(getpid())-\(process.processID)", under: parent,
                                                 limitBytes: Self.hardLimit(for: limit))
            do {
                // The process and, where it is a sandbox's init, the extension it started.
                try cgroup.add(pid: process.processID)
                for descendant in ProcessTree.descendants(of: process.processID) { try? cgroup.add(pid: descendant) }
            } catch {
                cgroup.remove()
                throw error
            }
            return cgroup
        } catch {
            FileHandle.standardError.write(Data("appexd: \(label) runs without a memory cgroup: \(error)\n".utf8))
            return nil
        }
    }

    /// Confines `process` as ``confine(_:limit:label:)`` does, in the background, then
    /// passes the cgroup (or nil) to `done`.
    ///
    /// Moving a process between cgroups waits for an RCU grace period on cgroup v1, about
    /// 11 ms on the 2-core VM where Appex is measured: longer than the extension takes to
    /// start, so doing it before answering the host would double a cold start. Until the move
    /// is done the footprint watch is the only limit; page faults bound what a process can
    /// touch in that time to some tens of MiB, and the watch ends it at its point's limit.
    func confineInBackground(_ process: ProcessDescriptor, limit: Int, label: String,
                             done: @escaping @Sendable (MemoryCgroup?) -> Void) {
        queue.async { done(confine(process, limit: limit, label: label)) }
    }

    /// Returns once every background confinement asked for so far has finished.
    func waitForBackgroundConfinements() {
        queue.sync {}
    }

    /// Removes the cgroups of daemons that are gone, such as one killed with SIGKILL. A
    /// cgroup named for a live daemon is its own business; one that still holds a process stays.
    private static func removeStale(under parent: MemoryCgroup.Parent) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.url.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let daemon = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ Int32($0) }),
                  kill(daemon, 0) != 0, errno == ESRCH else { continue }
            _ = rmdir(parent.url.appendingPathComponent(name).path)
        }
    }
}
