/// When appexd starts an extension stopped, before its principal class is made, so that a
/// debugger can attach: `appex run ID --wait-for-debugger` (once) and `appex debug ID` (always).
public enum DebuggerWait: String, Sendable, Hashable {
    /// The next launch only; appexd clears the setting as it launches.
    case once
    /// Every launch, by any host, until it is turned off.
    case always
}
