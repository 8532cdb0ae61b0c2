import AppexLocking

/// Runs one piece of work per key at a time: a caller that finds the key's work under way
/// waits for it instead of starting its own. Two hundred opens of a file not yet fetched
/// fetch it once.
final class SingleFlight<Key: Hashable & Sendable>: Sendable {
    private let running = Locked<[Key: Task<Void, any Error>]>([:])

    func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Void) async throws {
        let task = running.withLock { running in
            if let task = running[key] { return task }
            let task = Task { try await work() }
            running[key] = task
            return task
        }
        defer { running.withLock { if $0[key] == task { $0[key] = nil } } }
        try await task.value
    }
}
