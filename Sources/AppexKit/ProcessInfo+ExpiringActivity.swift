public import Foundation

#if !canImport(Darwin)
extension ProcessInfo {
    /// Runs `block` concurrently (on a thread of its own) with `false`, and, if the process is to end while
    /// it runs, again with `true`, as on Apple's systems: in an extension, appexd ends the
    /// process soon after its last request, and the runtime expires each activity then and
    /// waits for it, within appexd's grace (1 s by default). Foundation on Linux lacks this
    /// method; in a process that is no extension, no activity expires.
    public func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void) {
        precondition(!reason.isEmpty, "performExpiringActivity(withReason:using:): the reason must not be empty")
        ExpiringActivities.shared.perform(block)
    }
}
#endif
