import AppexWire

/// Why a request ended without the extension's answer: the reason its host's interruption
/// block gets, and what ``ExtensionRequestOutcome/interrupted(_:)`` carries.
public struct ExtensionInterruption: Error, Sendable, Hashable, CustomStringConvertible {
    /// The specific reason.
    public enum Reason: Sendable, Hashable {
        /// The process ended on its own: by `signal`, or with `exitStatus`.
        case crashed(signal: Int32?, exitStatus: Int32?)
        /// appexd ended it for going over its point's memory limit.
        case memoryLimitExceeded(limitBytes: UInt64, measuredBytes: UInt64)
        /// It did not check in within its point's launch deadline.
        case launchDeadlineMissed(limitMilliseconds: UInt64)
        /// It did not answer within its point's request deadline.
        case requestDeadlineMissed(limitMilliseconds: UInt64)
        /// It broke the protocol, such as by sending a malformed frame.
        case protocolError
        /// appexd went away, and the extension with it.
        case daemonGone
        /// It could not start, such as when its principal class is missing.
        case launchFailed
    }

    /// The reason.
    public let reason: Reason
    /// One line for people: what happened, to which extension.
    public let message: String

    public init(_ reason: Reason, message: String) {
        self.reason = reason
        self.message = message
    }

    /// The interruption the daemon reported.
    init(_ interruption: Interruption) {
        let reason: Reason = switch interruption.kind {
        case .crashed, .unspecified: .crashed(signal: interruption.signal, exitStatus: interruption.exitStatus)
        case .memoryLimit: .memoryLimitExceeded(limitBytes: interruption.limit, measuredBytes: interruption.measured)
        case .launchDeadline: .launchDeadlineMissed(limitMilliseconds: interruption.limit)
        case .requestDeadline: .requestDeadlineMissed(limitMilliseconds: interruption.limit)
        case .protocolError: .protocolError
        case .daemonGone: .daemonGone
        case .launchFailed: .launchFailed
        }
        self.init(reason, message: interruption.message)
    }

    public var description: String { message }
}

extension ExtensionInterruption.Reason: CustomStringConvertible {
    /// The reason in a few words, such as "crashed (signal 11)" or "memory limit exceeded".
    public var description: String {
        switch self {
        case .crashed(let signal?, _): "crashed (signal \(signal))"
        case .crashed(_, let status?): "crashed (exit status \(status))"
        case .crashed: "crashed"
        case .memoryLimitExceeded: "memory limit exceeded"
        case .launchDeadlineMissed: "launch deadline missed"
        case .requestDeadlineMissed: "request deadline missed"
        case .protocolError: "protocol error"
        case .daemonGone: "daemon gone"
        case .launchFailed: "launch failed"
        }
    }
}
