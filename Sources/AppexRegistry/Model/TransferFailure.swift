public import Foundation

/// Why a transfer's attempt, or the task, failed: the `URLError` code `URLSession` would give
/// the error, and the reason in words, which says more than the code can.
public struct TransferFailure: Error, Sendable, Hashable {
    public var code: URLError.Code
    public var reason: String

    public init(_ code: URLError.Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

extension TransferFailure {
    /// An attempt the transfers' process was stopped during (or killed): retried.
    public static let processStopped = TransferFailure(.networkConnectionLost, "the transfers' process stopped during the attempt")
    /// A task a process attached to its session cancelled.
    public static let cancelled = TransferFailure(.cancelled, "cancelled")
}
