import Glibc
import Synchronization

/// Set by the handler of SIGINT and SIGTERM once ``InterruptSignals`` catches them.
private let interrupted = Atomic<Bool>(false)

/// SIGINT and SIGTERM, caught instead of ending the process, so a command that runs until it
/// is interrupted (`appex today --watch` in a pipe) can close what it opened first.
struct InterruptSignals {
    init() {
        signal(SIGINT) { _ in interrupted.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in interrupted.store(true, ordering: .relaxed) }
    }

    /// Whether either signal has come.
    var received: Bool { interrupted.load(ordering: .relaxed) }
}
