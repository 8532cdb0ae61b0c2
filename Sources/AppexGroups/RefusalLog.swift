import AppexLocking
import AppexSystem
import Foundation

/// Says on standard error why a group API gave nothing, once per group and process, so a
/// nil is never silent and a loop that asks again does not flood the log.
enum RefusalLog {
    private static let said = Locked<Set<String>>([])

    static func once(_ group: String, _ message: String) {
        guard said.withLock({ $0.insert(group).inserted }) else { return }
        always(message)
    }

    /// Says `message` on standard error, with the process's name and pid.
    static func always(_ message: String) {
        let name = ProcessInfo.processInfo.processName
        StandardError.write(line: "\(name)[\(getpid())]: \(message)")
    }
}
