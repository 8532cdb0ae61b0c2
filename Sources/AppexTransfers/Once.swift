import Synchronization

/// A handler that runs on its first call only: a delegate's completion handler, which a
/// delegate may call twice by mistake, where the second would undo what the first decided.
final class Once<Value: Sendable>: Sendable {
    private let called = Atomic<Bool>(false)
    private let body: @Sendable (Value) -> Void

    init(_ body: @escaping @Sendable (Value) -> Void) {
        self.body = body
    }

    /// Runs the handler with `value`, unless it ran already.
    @Sendable func call(_ value: Value) {
        guard !called.exchange(true, ordering: .acquiringAndReleasing) else { return }
        body(value)
    }
}
