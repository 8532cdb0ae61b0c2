import Foundation

/// Runs blocking work (waiting for a child process, copying a bundle, polling a socket) on a
/// thread of its own, and awaits its result, so it never holds up Swift's cooperative pool.
///
/// The pool has one thread per core. Tests run in parallel on it, so a test that blocks one
/// of its threads stalls every other test's continuations, and on a two-core machine a few
/// blocking tests can hold up a timing-sensitive one for minutes.
///
/// Nothing here limits how much such work runs at once: the test run does, by how many test
/// cases it runs together (this package's tests link CAppexTestRunWidth for that). An earlier
/// limit here, two pieces of work at a time, held a turn while a command waited on its
/// children, and in a whole sanitized run, where every process is slow, tests waited minutes
/// for a turn and missed their time limits (docs/reliability.md, "Sanitizers").
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
