import AppexSystem
import Foundation

/// An extension's log: lines on its standard error, which appexd keeps in its own log, each
/// named with the process and its pid.
public enum ExtensionLog {
    /// Writes `message` as one line.
    public static func write(_ message: String) {
        StandardError.write(line: "\(ProcessInfo.processInfo.processName)[\(getpid())]: \(message)")
    }
}
