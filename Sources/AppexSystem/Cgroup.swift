public import Foundation
import Glibc

/// A cgroup of its own for one process, which caps what it and everything it starts may
/// use: memory (a hard limit, the backstop under appexd's footprint watch) and the number of
/// processes and threads (so a fork bomb stops at its cap).
///
/// Works with cgroup v2 where this process's cgroup delegates the controller, and with v1,
/// as on hybrid machines whose memory and pids controllers are still on v1; there each
/// controller has a hierarchy, and so a folder, of its own. The kernel ends a process that
/// goes over its memory with SIGKILL (``oomKills`` tells that apart from any other SIGKILL),
/// and refuses a fork past its process cap with EAGAIN (``processLimitHits`` counts those).
public struct Cgroup: Sendable {
    /// A resource a cgroup can limit.
    public enum Controller: String, Sendable, Hashable, CaseIterable {
        case memory, pids
    }

    /// The cgroup version a folder belongs to.
    public enum Version: String, Sendable {
        case v1, v2
    }

    /// Where this process may make cgroups for some controllers: its own cgroup in their
    /// hierarchy.
    public struct Parent: Sendable, Hashable, CustomStringConvertible {
        public let url: URL
        public let version: Version
        /// The controllers a cgroup made here has: on v1 the hierarchy's, on v2 those
        /// delegated that were asked for.
        public var controllers: Set<Controller>

        public init(url: URL, version: Version, controllers: Set<Controller>) {
            self.url = url
            self.version = version
            self.controllers = controllers
        }

        /// The parent for `controller` in this process, or why there is none.
        public static func discover(_ controller: Controller) -> Result<Parent, CgroupUnavailable> {
            let cgroups = KernelFile.text(at: "/proc/self/cgroup") ?? ""
            let mounts = KernelFile.text(at: "/proc/self/mountinfo") ?? ""
            var reasons: [String] = []
            for line in cgroups.split(separator: "\n") {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3 else { continue }
                let path = String(fields[2])
                if fields[0] == "0", fields[1].isEmpty {
                    guard let mount = mountPoint(in: mounts, type: "cgroup2", option: nil) else { continue }
                    let url = URL(fileURLWithPath: mount + path, isDirectory: true)
                    let delegated = KernelFile.text(at: url.appendingPathComponent("cgroup.subtree_control").path) ?? ""
                    if delegated.split(whereSeparator: \.isWhitespace).contains(Substring(controller.rawValue)), access(url.path, W_OK) == 0 {
                        return .success(Parent(url: url, version: .v2, controllers: [controller]))
                    }
                    reasons.append("cgroup v2 at \(url.path) does not delegate the \(controller.rawValue) controller to this process")
                } else if fields[1].split(separator: ",").contains(Substring(controller.rawValue)) {
                    guard let mount = mountPoint(in: mounts, type: "cgroup", option: controller.rawValue) else { continue }
                    let url = URL(fileURLWithPath: mount + path, isDirectory: true)
                    if access(url.path, W_OK) == 0 { return .success(Parent(url: url, version: .v1, controllers: [controller])) }
                    reasons.append("cgroup v1 \(controller.rawValue) folder \(url.path) is not writable by this user")
                }
            }
            if reasons.isEmpty { reasons.append("no \(controller.rawValue) controller is mounted") }
            return .failure(CgroupUnavailable(reason: reasons.joined(separator: "; ")))
        }

        /// The parents for `controllers`, one per folder (so one on v2, one per controller
        /// on v1), and why each controller that has none can't be had.
        public static func discover(_ controllers: [Controller]) -> (parents: [Parent], unavailable: [Controller: CgroupUnavailable]) {
            var parents: [Parent] = []
            var unavailable: [Controller: CgroupUnavailable] = [:]
            for controller in controllers {
                switch discover(controller) {
                case .success(let parent):
                    if let same = parents.firstIndex(where: { $0.url == parent.url }) {
                        parents[same].controllers.insert(controller)
                    } else {
                        parents.append(parent)
                    }
                case .failure(let reason):
                    unavailable[controller] = reason
                }
            }
            return (parents, unavailable)
        }

        /// The mount point of the first mount of `type` whose super options include `option`.
        private static func mountPoint(in mountinfo: String, type: String, option: String?) -> String? {
            for line in mountinfo.split(separator: "\n") {
                let halves = line.components(separatedBy: " - ")
                guard halves.count == 2 else { continue }
                let before = halves[0].split(separator: " ")
                let after = halves[1].split(separator: " ")
                guard before.count >= 5, after.count >= 3, after[0] == type else { continue }
                if let option, !after[2].split(separator: ",").contains(Substring(option)) { continue }
                return String(before[4])
            }
            return nil
        }

        public var description: String {
            "cgroup \(version.rawValue) at \(url.path) (\(controllers.map(\.rawValue).sorted().joined(separator: ", ")))"
        }
    }

    /// The cgroup's folder.
    public let url: URL
    /// Its version.
    public let version: Version
    /// The controllers it has, as its parent's.
    public let controllers: Set<Controller>

    /// Makes the cgroup `name` under `parent`, with no limits yet.
    public static func create(named name: String, under parent: Parent) throws(SystemError) -> Cgroup {
        let url = parent.url.appendingPathComponent(name, isDirectory: true)
        if mkdir(url.path, 0o755) != 0, errno != EEXIST { throw SystemError("mkdir", subject: url.path) }
        return Cgroup(url: url, version: parent.version, controllers: parent.controllers)
    }

    /// Caps its memory at `bytes` (and, on v1 where swap is accounted, memory and swap
    /// together; on v2, swap at none).
    public func limitMemory(to bytes: Int) throws(SystemError) {
        switch version {
        case .v1:
            try write("\(bytes)", to: "memory.limit_in_bytes")
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("memory.memsw.limit_in_bytes").path) {
                try write("\(bytes)", to: "memory.memsw.limit_in_bytes")
            }
        case .v2:
            try write("\(bytes)", to: "memory.max")
            try? write("0", to: "memory.swap.max")
        }
    }

    /// Caps the processes and threads in it at `count`: a fork or thread past that fails
    /// with EAGAIN. The cap holds forks, not moves: a process moved in counts, but is never
    /// refused.
    public func limitProcesses(to count: Int) throws(SystemError) {
        try write("\(count)", to: "pids.max")
    }

    /// Moves process `pid`, with all its threads, into the cgroup.
    public func add(pid: Int32) throws(SystemError) {
        try write("\(pid)", to: "cgroup.procs")
    }

    /// The processes in it now.
    public var processIDs: Set<Int32> {
        let text = KernelFile.text(at: url.appendingPathComponent("cgroup.procs").path) ?? ""
        return Set(text.split(separator: "\n").compactMap { Int32($0) })
    }

    /// How many times the kernel's OOM killer ended a process of this cgroup.
    public var oomKills: Int {
        counter("oom_kill", in: version == .v1 ? "memory.oom_control" : "memory.events")
    }

    /// How many forks or new threads were refused because the cgroup was at its process cap.
    public var processLimitHits: Int {
        counter("max", in: "pids.events")
    }

    /// The most memory the cgroup's processes have used, in bytes, where the kernel says.
    public var peakBytes: UInt64? {
        let file = version == .v1 ? "memory.max_usage_in_bytes" : "memory.peak"
        let text = KernelFile.text(at: url.appendingPathComponent(file).path) ?? ""
        return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Removes the cgroup once its processes have exited; a cgroup that still has some is left.
    public func remove() {
        _ = rmdir(url.path)
    }

    /// The value of the line `name VALUE` in `file`, or 0.
    private func counter(_ name: String, in file: String) -> Int {
        let text = KernelFile.text(at: url.appendingPathComponent(file).path) ?? ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == name { return Int(parts[1]) ?? 0 }
        }
        return 0
    }

    private func write(_ value: String, to file: String) throws(SystemError) {
        let path = url.appendingPathComponent(file).path
        let descriptor = try FileDescriptor.open(path, flags: O_WRONLY)
        defer { descriptor.close() }
        try descriptor.write(Array(value.utf8))
    }
}

/// Why no cgroup can be made here for a controller.
public struct CgroupUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
