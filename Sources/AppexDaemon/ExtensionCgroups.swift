import AppexSystem
import Foundation
import Glibc

/// Puts each extension process, with everything it starts, in cgroups of its own that cap
/// its memory (at ``MemoryLimits/cgroupLimit(for:)``) and its processes and threads (at its
/// point's `processLimit`), wherever the machine lets appexd make them.
///
/// Moving a process between cgroups waits for an RCU grace period on cgroup v1, about 11 ms
/// on the 2-core VM where Appex is measured (later moves within the same grace period are
/// cheap): longer than the extension takes to start, so doing it before answering the host
/// would double a cold start. So it happens in the background, and until it is done:
/// - the footprint watch is the only memory limit; page faults bound what a process can
///   touch in that time to some tens of MiB, and the watch ends it at its point's limit;
/// - RLIMIT_NPROC, which counts only the extension's processes in its own user namespace,
///   caps its processes, except for root, whom the kernel exempts.
/// A process forked while its parent is being moved stays behind, so the move goes round
/// again for those until none is left outside.
struct ExtensionCgroups: Sendable {
    /// Where cgroups are made: one parent per folder. A controller with none is left out;
    /// `appex doctor` says why.
    let parents: [Cgroup.Parent]
    /// Where processes are moved into their cgroups, one at a time, off the request's path.
    private let queue = DispatchQueue(label: "appex-cgroups")
    private static let prefix = "appex-"

    init(parents: [Cgroup.Parent] = Cgroup.Parent.discover(Cgroup.Controller.allCases).parents) {
        self.parents = parents
        parents.forEach(Self.removeStale)
    }

    /// Whether processes get any cgroup here.
    var isAvailable: Bool { !parents.isEmpty }

    /// Puts `process` and its descendants in new cgroups: memory capped at the hard limit
    /// for `memoryLimit`, processes and threads at `processLimit`. Returns nil, and says why
    /// on stderr, if it can't; the footprint watch and the rlimits still apply.
    func confine(_ process: ProcessDescriptor, memoryLimit: Int, processLimit: Int, label: String) -> ProcessCgroups? {
        var made: [Cgroup] = []
        for parent in parents {
            var cgroup: Cgroup?
            do {
                let new = try Cgroup.create(named: "\(Self.prefix)\(getpid())-\(process.processID)", under: parent)
                cgroup = new
                if new.controllers.contains(.memory) { try new.limitMemory(to: MemoryLimits.cgroupLimit(for: memoryLimit)) }
                if new.controllers.contains(.pids) { try new.limitProcesses(to: processLimit) }
                try Self.move(process.processID, into: new)
                made.append(new)
            } catch {
                DaemonLog.write(line: "appexd: \(label) runs without its \(parent): \(error)")
                cgroup?.remove()
            }
        }
        return made.isEmpty ? nil : ProcessCgroups(cgroups: made)
    }

    /// Moves `root` (a sandbox's init, or the extension itself), then whatever it started
    /// that is still outside, round after round until nothing is left outside.
    private static func move(_ root: Int32, into cgroup: Cgroup) throws(SystemError) {
        try cgroup.add(pid: root)
        for _ in 0..<16 {
            let inside = cgroup.processIDs
            let outside = ProcessTree.descendants(of: root).filter { !inside.contains($0) }
            if outside.isEmpty { return }
            for pid in outside { try? cgroup.add(pid: pid) } // one may have exited meanwhile
        }
    }

    /// Confines `process` as ``confine(_:memoryLimit:processLimit:label:)`` does, in the
    /// background, then passes the cgroups (or nil) to `done`.
    func confineInBackground(_ process: ProcessDescriptor, memoryLimit: Int, processLimit: Int, label: String,
                             done: @escaping @Sendable (ProcessCgroups?) -> Void) {
        queue.async { done(confine(process, memoryLimit: memoryLimit, processLimit: processLimit, label: label)) }
    }

    /// Returns once every background confinement asked for so far has finished.
    func waitForBackgroundConfinements() {
        queue.sync {}
    }

    /// Removes the cgroups of daemons that are gone, such as one killed with SIGKILL. A
    /// cgroup named for a live daemon is its own business; one that still holds a process stays.
    private static func removeStale(under parent: Cgroup.Parent) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.url.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let daemon = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ Int32($0) }),
                  kill(daemon, 0) != 0, errno == ESRCH else { continue }
            _ = rmdir(parent.url.appendingPathComponent(name).path)
        }
    }
}
