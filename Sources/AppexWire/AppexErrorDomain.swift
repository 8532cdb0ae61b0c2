/// The error domains Appex itself reports in, on the wire and to callers.
public enum AppexErrorDomain {
    /// Failures of the runtime: no such extension, launch failures, a daemon that can't be reached.
    /// Codes: 1 not installed, 2 registry unreadable, 3 launch failed, 4 disabled,
    /// 5 point not hosted, 6 daemon unreachable, 7 protocol error, 8 refused peer.
    public static let runtime = "AppexRuntimeErrorDomain"
}
