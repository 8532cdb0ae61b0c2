import Foundation

/// Counts of what a process holds, taken before and after a test to prove nothing leaked.
public struct ResourceCounts: Sendable, Hashable, CustomStringConvertible {
    /// Open file descriptors of this process.
    public var openFileDescriptors: Int
    /// Live child processes of this process.
    public var childProcesses: Int

    /// The counts now, read from /proc.
    public static func current() -> ResourceCounts {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let pid = ProcessInfo.processInfo.processIdentifier
        let children = (try? String(contentsOfFile: "/proc/self/task/\(pid)/children", encoding: .utf8))?
            .split(separator: " ").count ?? 0
        // Listing /proc/self/fd opens one descriptor of its own.
        return ResourceCounts(openFileDescriptors: fds - 1, childProcesses: children)
    }

    public var description: String { "\(openFileDescriptors) fds, \(childProcesses) children" }
}
