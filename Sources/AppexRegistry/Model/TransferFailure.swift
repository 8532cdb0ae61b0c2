/// Why a transfer's attempt, or the task, failed: the code `URLSession` would give the error
/// (in `NSURLErrorDomain`), and the reason in words, which says more than the code can.
public struct TransferFailure: Sendable, Hashable {
    /// `URLError.Code`'s values, by Apple's names, for the failures a transfer can meet.
    public enum Code: Int, Sendable {
        case unknown = -1
        case cancelled = -999
        case timedOut = -1001
        case cannotFindHost = -1003
        case cannotConnectToHost = -1004
        case networkConnectionLost = -1005
        case badServerResponse = -1011
        case fileDoesNotExist = -1100
        case noPermissionsToReadFile = -1102
        case serverCertificateUntrusted = -1202
        case serverCertificateHasUnknownRoot = -1203
        case cannotCreateFile = -3000
        case cannotWriteToFile = -3003
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
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
