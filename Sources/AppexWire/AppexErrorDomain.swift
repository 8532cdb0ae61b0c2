/// The error domains Appex itself reports in, on the wire and to callers.
public enum AppexErrorDomain {
    /// Failures of the runtime: no such extension, launch failures, a daemon that can't be reached.
    /// Codes: 1 not installed, 2 registry unreadable, 3 launch failed, 4 disabled,
    /// 5 point not hosted, 6 daemon unreachable, 7 protocol error, 8 refused peer,
    /// 9 an item that can't cross between processes, 10 a request the host cancelled,
    /// 11 no files the user picks (not entitled, or no picker in the host), 12 a background
    /// session's call refused (not attached, a group not entitled, a task that can't be made),
    /// 13 a connection over appexd's limits (no handshake in time, too many from one process).
    public static let runtime = "AppexRuntimeErrorDomain"

    /// An error in ``runtime`` with `code`, saying what went wrong and what to do.
    public static func runtimeError(_ code: Int, _ message: String, recovery: String = "") -> ErrorInfo {
        ErrorInfo(domain: runtime, code: code, message: message, recoverySuggestion: recovery)
    }
}

/// Apple's `NSURLErrorDomain`, and the codes of it that background sessions report.
public enum URLErrorDomain {
    public static let name = "NSURLErrorDomain"
    /// `NSURLErrorCancelled`: the task was cancelled.
    public static let cancelled = -999
    /// `NSURLErrorBackgroundSessionInUseByAnotherProcess`: another process is attached to the session.
    public static let backgroundSessionInUseByAnotherProcess = -996
}
