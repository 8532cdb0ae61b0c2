import AppexLocking
/// Runs `body`, cancelling it after `seconds` (never, for 0).
func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    guard seconds > 0 else { return try await body() }
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        while let result = try await group.next() {
            if let result { return result }
            group.cancelAll()
        }
        throw CancellationError()
    }
}

/// `body`'s result, or nil if it takes longer than `bound`. Unlike ``withTimeout(_:_:)``, it
/// doesn't wait for `body` to notice cancellation: a `body` that can't be cancelled, such as
/// waiting for an extension that doesn't answer, goes on in the background.
func withBound<T: Sendable>(_ bound: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
    let first = FirstAnswer<T?>()
    return await withCheckedContinuation { continuation in
        first.set(continuation)
        Task { first.answer(await body()) }
        Task {
            try? await Task.sleep(for: bound)
            first.answer(nil)
        }
    }
}

/// Resumes a continuation with the first answer given, and ignores the rest.
private final class FirstAnswer<T: Sendable>: Sendable {
    private let waiting = Locked<CheckedContinuation<T, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<T, Never>) {
        waiting.withLock { $0 = continuation }
    }

    func answer(_ value: T) {
        waiting.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }?.resume(returning: value)
    }
}
