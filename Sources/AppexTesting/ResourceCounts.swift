public import Foundation

/// What this process, or another, holds open, read from /proc, to prove a test left nothing behind.
///
/// Tests run in parallel in one process, so whole-process counts are noisy; these ask about
/// the resources one test owns: descriptors under a folder, pipes by name, children by pid.
public enum ResourceCounts {
    /// What each open descriptor of this process, or of process `pid`, refers to: a path, or
    /// a kernel name such as `pipe:[1234]`.
    public static func openDescriptorTargets(of pid: Int32? = nil) -> [String] {
        let folder = "/proc/\(pid.map(String.init) ?? "self")/fd"
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)") }
    }

    /// How many open descriptors refer to files under `folder`.
    public static func openDescriptors(under folder: URL) -> Int {
        let prefix = folder.resolvingSymlinksInPath().path + "/"
        return openDescriptorTargets().filter { $0.hasPrefix(prefix) }.count
    }

    /// How many descriptors and threads another process, such as appexd, has open; -1 for
    /// each if it can't be read.
    public static func held(by pid: Int32) -> (descriptors: Int, threads: Int) {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
        return (descriptors, threads)
    }

    /// The live children of this process, over every thread (each lists the children it started).
    public static func childProcesses() -> Set<Int32> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var children: Set<Int32> = []
        for task in tasks {
            let list = (try? String(contentsOfFile: "/proc/self/task/\(task)/children", encoding: .utf8)) ?? ""
            children.formUnion(list.split(separator: " ").compactMap { Int32($0) })
        }
        return children
    }
}
