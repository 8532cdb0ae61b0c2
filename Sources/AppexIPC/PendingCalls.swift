import Synchronization

/// Calls waiting for their answers, by call number.
final class PendingCalls: Sendable {
    typealias Continuation = CheckedContinuation<Result<IncomingMessage, ConnectionError>, Never>

    private let state = Mutex((next: UInt64(1), waiting: [UInt64: Continuation]()))

    func nextNumber() -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
    }

    func register(_ number: UInt64, _ continuation: Continuation) {
        state.withLock { $0.waiting[number] = continuation }
    }

    /// Resumes the call `number` if it is waiting; returns whether it was.
    @discardableResult
    func resume(_ number: UInt64, with result: Result<IncomingMessage, ConnectionError>) -> Bool {
        guard let continuation = state.withLock({ $0.waiting.removeValue(forKey: number) }) else { return false }
        continuation.resume(returning: result)
        return true
    }

    func failAll(_ error: ConnectionError) {
        let waiting = state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting.values
        }
        for continuation in waiting { continuation.resume(returning: .failure(error)) }
    }
}
