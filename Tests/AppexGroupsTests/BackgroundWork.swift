import AppexLocking
import Foundation

/// Blocking work, such as a coordination that waits, started at once on a thread of its own:
/// started from a Task instead, it could wait for a thread of the cooperative pool that the
/// tests' own waits hold.
final class BackgroundWork<T: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<T?>(nil)

    init(_ body: @escaping @Sendable () -> T) {
        Thread { [self] in
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }.start()
    }

    /// The result, once the work ends within `seconds`; nil if it doesn't.
    func value(within seconds: Int = 30) -> T? {
        guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return result.withLock { $0 }
    }

    /// Whether the work has ended.
    var hasEnded: Bool { result.withLock { $0 != nil } }
}
