import Foundation
import Glibc

/// How long a process has run, as /proc says, for `appex daemon status`.
enum ProcessFacts {
    /// How long `pid` has run, in seconds: its start time (field 22 of /proc/PID/stat, in
    /// clock ticks since boot) against the system's uptime.
    static func ageInSeconds(of pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")"),
              let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
              let seconds = uptime.split(separator: " ").first.flatMap({ Double($0) })
        else { return nil }
        // After the command name: state is field 3, so start time (22) is the 20th field here.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        return max(0, Int(seconds - ticks / Double(sysconf(Int32(_SC_CLK_TCK)))))
    }
}
