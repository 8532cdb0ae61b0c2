import AppexLocking

/// A flag that lets exactly one caller through, so a completion handler runs once even when
/// a provider's handler calls its completion twice.
final class OnceFlag: Sendable {
    private let claimed = Locked(false)

    /// `true` for the first caller, `false` for every later one.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
