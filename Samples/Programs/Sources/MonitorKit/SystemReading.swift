public import Foundation

/// One reading of this computer's state, as top(1) shows it: the load averages, the tasks,
/// the uptime, the memory the kernel counts as available, and the time it was taken.
public struct SystemReading: Sendable, Hashable {
    /// When it was read.
    public var time: Date
    /// The load averages over 1, 5 and 15 minutes: tasks running or waiting to, on average.
    public var load1: Double
    public var load5: Double
    public var load15: Double
    /// The processors online.
    public var cores: Int
    /// The memory in all, and what the kernel could give new work without swapping, in bytes.
    public var memoryTotal: UInt64
    public var memoryAvailable: UInt64
    /// How long since the system started.
    public var uptime: Duration
    /// The processes and threads the system runs.
    public var tasks: Int

    public init(time: Date, load1: Double, load5: Double, load15: Double, cores: Int,
                memoryTotal: UInt64, memoryAvailable: UInt64, uptime: Duration, tasks: Int) {
        (self.time, self.load1, self.load5, self.load15, self.cores) = (time, load1, load5, load15, cores)
        (self.memoryTotal, self.memoryAvailable, self.uptime, self.tasks) = (memoryTotal, memoryAvailable, uptime, tasks)
    }

    /// Reads the system now, from /proc (loadavg, uptime, meminfo), as top(1) does; nil if
    /// /proc can't be read.
    public static func now() -> SystemReading? {
        guard let load = fields("/proc/loadavg"), load.count >= 4, let load1 = Double(load[0]), let load5 = Double(load[1]),
              let load15 = Double(load[2]), let tasks = load[3].split(separator: "/").last.flatMap({ Int($0) }),
              let uptime = fields("/proc/uptime")?.first.flatMap(Double.init),
              let memory = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)
        else { return nil }
        // MemAvailable counts the page cache the kernel can drop; MemFree doesn't.
        var kibibytes: [Substring: UInt64] = [:]
        for line in memory.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count >= 2, let value = UInt64(parts[1]) { kibibytes[parts[0].dropLast()] = value }
        }
        guard let total = kibibytes["MemTotal"], let available = kibibytes["MemAvailable"] ?? kibibytes["MemFree"] else { return nil }
        return SystemReading(time: Date(), load1: load1, load5: load5, load15: load15, cores: max(ProcessInfo.processInfo.activeProcessorCount, 1),
                             memoryTotal: total * 1024, memoryAvailable: min(available, total) * 1024,
                             uptime: .milliseconds(Int64(uptime * 1000)), tasks: tasks)
    }

    /// The whitespace-separated fields of a one-line file.
    private static func fields(_ path: String) -> [Substring]? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.split(whereSeparator: \.isWhitespace)
    }

    /// The one-minute load per processor: 1 when every processor is busy.
    public var loadPerCore: Double { load1 / Double(cores) }

    /// The share of memory in use, from 0 to 1.
    public var memoryUsed: Double {
        memoryTotal == 0 ? 0 : Double(memoryTotal - memoryAvailable) / Double(memoryTotal)
    }

    /// "14:03:07", in the local time zone.
    public var clock: String {
        time.formatted(.dateTime.hour(.twoDigits(amPM: .omitted)).minute(.twoDigits).second(.twoDigits))
    }

    /// "0.42 0.35 0.30".
    public var loadText: String {
        [load1, load5, load15].map { String(format: "%.2f", $0) }.joined(separator: " ")
    }

    /// "3.1 of 23.5 GiB".
    public var memoryText: String {
        let gibibyte = Double(1 << 30)
        return String(format: "%.1f of %.1f GiB", Double(memoryTotal - memoryAvailable) / gibibyte, Double(memoryTotal) / gibibyte)
    }

    /// "3 d 4 h", "4 h 12 min", "12 min".
    public var uptimeText: String {
        let minutes = Int(uptime.components.seconds) / 60
        let (days, hours) = (minutes / 1440, minutes / 60 % 24)
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes % 60) min" }
        return "\(minutes) min"
    }
}
