import AppexLocking

/// Calls waiting for their answers, by call number: each with what to do with its answer,
/// whether that resumes a task or wakes a waiting thread.
final class PendingCalls: Sendable {
    typealias Resume = @Sendable (Result<IncomingMessage, ConnectionError>) -> Void

    private let state = Locked((next: UInt64(1), waiting: [UInt64: Resume]()))

    func nextNumber() -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
    }

    func register(_ number: UInt64, _ resume: @escaping Resume) {
        state.withLock { $0.waiting[number] = resume }
    }

    /// Resumes the call `number` if it is waiting; returns whether it was.
    @discardableResult
    func resume(_ number: UInt64, with result: Result<IncomingMessage, ConnectionError>) -> Bool {
        guard let resume = state.withLock({ $0.waiting.removeValue(forKey: number) }) else { return false }
        resume(result)
        return true
    }

    func failAll(_ error: ConnectionError) {
        let waiting = state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting.values
        }
        for resume in waiting { resume(.failure(error)) }
    }
}
