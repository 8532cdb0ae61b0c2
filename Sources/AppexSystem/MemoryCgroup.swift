public import Foundation
import Glibc

/// A cgroup of its own for one process, with a hard memory limit: the backstop under
/// appexd's footprint watch, so a process that allocates fast is stopped by the kernel
/// between two looks.
///
/// Works with cgroup v2 where this process's cgroup delegates the memory controller, and
/// with v1, as on hybrid machines whose memory controller is still on v1. The kernel ends a
/// process that goes over with SIGKILL; ``oomKills`` tells that apart from any other SIGKILL.
public struct MemoryCgroup: Sendable {
    /// The cgroup version a folder belongs to.
    public enum Version: String, Sendable {
        case v1, v2
    }

    /// Where this process may make memory cgroups: its own cgroup in the memory hierarchy.
    public struct Parent: Sendable, CustomStringConvertible {
        public let url: URL
        public let version: Version

        /// The parent for this process, or why there is none.
        public static func discover() -> Result<Parent, CgroupUnavailable> {
            let cgroups = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
            let mounts = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
            var reasons: [String] = []
            for line in cgroups.split(separator: "\n") {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3 else { continue }
                let path = String(fields[2])
                if fields[0] == "0", fields[1].isEmpty {
                    guard let mount = mountPoint(in: mounts, type: "cgroup2", option: nil) else { continue }
                    let url = URL(fileURLWithPath: mount + path, isDirectory: true)
                    let controllers = (try? String(contentsOf: url.appendingPathComponent("cgroup.subtree_control"), encoding: .utf8)) ?? ""
                    if controllers.split(whereSeparator: \.isWhitespace).contains("memory"), access(url.path, W_OK) == 0 {
                        return .success(Parent(url: url, version: .v2))
                    }
                    reasons.append("cgroup v2 at \(url.path) does not delegate the memory controller to this process")
                } else if fields[1].split(separator: ",").contains("memory") {
                    guard let mount = mountPoint(in: mounts, type: "cgroup", option: "memory") else { continue }
                    let url = URL(fileURLWithPath: mount + path, isDirectory: true)
                    if access(url.path, W_OK) == 0 { return .success(Parent(url: url, version: .v1)) }
                    reasons.append("cgroup v1 memory folder \(url.path) is not writable by this user")
                }
            }
            if reasons.isEmpty { reasons.append("no memory controller is mounted") }
            return .failure(CgroupUnavailable(reason: reasons.joined(separator: "; ")))
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

        public var description: String { "cgroup \(version.rawValue) at \(url.path)" }
    }

    /// The cgroup's folder.
    public let url: URL
    /// Its version.
    public let version: Version

    /// Makes the cgroup `name` under `parent`, capped at `limitBytes` of memory (and, on v1
    /// where swap is accounted, of memory and swap together).
    public static func create(named name: String, under parent: Parent, limitBytes: Int) throws(SystemError) -> MemoryCgroup {
        let url = parent.url.appendingPathComponent(name, isDirectory: true)
        if mkdir(url.path, 0o755) != 0, errno != EEXIST { throw SystemError("mkdir", subject: url.path) }
        let cgroup = MemoryCgroup(url: url, version: parent.version)
        do {
            switch parent.version {
            case .v1:
                try cgroup.write("\(limitBytes)", to: "memory.limit_in_bytes")
                if FileManager.default.fileExists(atPath: url.appendingPathComponent("memory.memsw.limit_in_bytes").path) {
                    try cgroup.write("\(limitBytes)", to: "memory.memsw.limit_in_bytes")
                }
            case .v2:
                try cgroup.write("\(limitBytes)", to: "memory.max")
                try? cgroup.write("0", to: "memory.swap.max")
            }
        } catch {
            cgroup.remove()
            throw error
        }
        return cgroup
    }

    /// Moves process `pid` into the cgroup.
    public func add(pid: Int32) throws(SystemError) {
        try write("\(pid)", to: "cgroup.procs")
    }

    /// How many times the kernel's OOM killer ended a process of this cgroup.
    public var oomKills: Int {
        let file = version == .v1 ? "memory.oom_control" : "memory.events"
        let text = (try? String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == "oom_kill" { return Int(parts[1]) ?? 0 }
        }
        return 0
    }

    /// The most memory the cgroup's processes have used, in bytes, where the kernel says.
    public var peakBytes: UInt64? {
        let file = version == .v1 ? "memory.max_usage_in_bytes" : "memory.peak"
        let text = (try? String(contentsOf: url.appendingPathComponent(file), encoding: .utf8)) ?? ""
        return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Removes the cgroup once its processes have exited; a cgroup that still has some is left.
    public func remove() {
        _ = rmdir(url.path)
    }

    private func write(_ value: String, to file: String) throws(SystemError) {
        let path = url.appendingPathComponent(file).path
        let descriptor = try FileDescriptor.open(path, flags: O_WRONLY)
        defer { descriptor.close() }
        try descriptor.write(Array(value.utf8))
    }
}

/// Why no memory cgroup can be made here.
public struct CgroupUnavailable: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
