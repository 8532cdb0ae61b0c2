import Foundation
import CAppexSystem
import Glibc

/// The processes a process started, and theirs, as /proc shows them: what a sandboxed
/// process's footprint and cgroup must cover, since the one appexd spawns is the init of
/// its pid namespace and the program runs as that init's child.
public enum ProcessTree {
    /// Every living descendant of `pid`, parents before their children; empty if it has
    /// none or is gone. A process that starts or ends meanwhile may be missed.
    public static func descendants(of pid: Int32) -> [Int32] {
        var found: [Int32] = []
        var next = [pid]
        while let parent = next.popLast(), found.count < 4096 {
            let direct = children(of: parent)
            found += direct
            next += direct
        }
        return found
    }

    /// The name the kernel shows for `pid` (/proc/PID/comm), or nil if it is gone.
    public static func name(of pid: Int32) -> String? {
        let name = contents(of: "/proc/\(pid)/comm")
        return name.isEmpty ? nil : name
    }

    /// Whether `pid` has exited: it is no longer in /proc, or it is a zombie waiting to be
    /// reaped (as a detached daemon stays until an init reaps it).
    public static func hasExited(_ pid: Int32) -> Bool {
        let stat = contents(of: "/proc/\(pid)/stat")
        // The state follows the command name, which is in parentheses and may hold spaces.
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first == "Z"
    }

    /// The pid of the process that traces `pid` (a debugger), or nil if none does.
    public static func tracer(of pid: Int32) -> Int32? {
        let status = contents(of: "/proc/\(pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("TracerPid:") }),
              let tracer = Int32(line.dropFirst("TracerPid:".count).trimmingCharacters(in: .whitespaces)), tracer != 0 else { return nil }
        return tracer
    }

    /// The living processes whose program is `path`, the inits of sandboxes (which run from
    /// the same file) left out.
    public static func programs(running path: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter {
            executablePath(of: $0) == path && !hasExited($0) && name(of: $0) != APPEX_INIT_PROCESS_NAME
        }
    }

    /// The path of `pid`'s executable (/proc/PID/exe), or nil if it is gone or not ours to read.
    public static func executablePath(of pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `pid`'s parent (`PPid` in /proc/PID/status, which any process may read), or nil if it
    /// is gone.
    public static func parent(of pid: Int32) -> Int32? {
        let status = contents(of: "/proc/\(pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }) else { return nil }
        return Int32(line.dropFirst("PPid:".count).trimmingCharacters(in: .whitespaces))
    }

    /// The children of every thread of `pid` (/proc/PID/task/TID/children); empty if it has
    /// none or is gone. A child that starts or ends meanwhile may be missed.
    public static func children(of pid: Int32) -> [Int32] {
        guard let tasks = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(tasks) }
        var children: [Int32] = []
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let thread = Int32(name) else { continue }
            children += contents(of: "/proc/\(pid)/task/\(thread)/children").split(separator: " ").compactMap { Int32($0) }
        }
        return children
    }

    /// A small /proc file's text, trimmed; empty if it can't be read.
    private static func contents(of path: String) -> String {
        (KernelFile.text(at: path) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
