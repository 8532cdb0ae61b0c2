import AppexLocking
import Foundation

/// Waits for a provider's completion handler, which may be called on any thread, once, more
/// than once, or never: the first call is the answer, later ones are ignored, and none by
/// `deadline` is ``ProviderError/noAnswer(_:after:)``.
enum ProviderAnswer {
    static func awaiting<T: Sendable>(_ call: String, within deadline: Duration,
                                      _ start: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void) async throws -> T {
        let pending = Locked<CheckedContinuation<T, any Error>?>(nil)
        let finish: @Sendable (Result<T, any Error>) -> Void = { result in
            pending.withLock { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            let timer = Task {
                try? await Task.sleep(for: deadline)
                if !Task.isCancelled { finish(.failure(ProviderError.noAnswer(call, after: deadline))) }
            }
            start { result in
                timer.cancel()
                finish(result)
            }
        }
    }
}

/// A provider's call that failed in a way of the host's seeing, not the provider's own error.
public enum ProviderError: Error, Equatable, CustomStringConvertible {
    /// The provider didn't call back in time.
    case noAnswer(String, after: Duration)
    /// It answered something the host refuses, said why.
    case refused(String)
    /// A listing that doesn't end: more pages or items than any folder is allowed.
    case endlessListing(String)

    public var description: String {
        switch self {
        case let .noAnswer(call, deadline): "the provider didn't answer \(call) within \(deadline)"
        case let .refused(reason): reason
        case let .endlessListing(reason): reason
        }
    }
}
