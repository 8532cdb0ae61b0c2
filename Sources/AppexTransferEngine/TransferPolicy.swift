import Foundation

/// How the engine retries and paces transfers (docs/transfers.md, "A task's life").
///
/// ``standard`` is the documented one; tests shorten the waits.
public struct TransferPolicy: Sendable {
    /// The attempts a task gets before it fails with the last attempt's reason.
    public var maximumAttempts: Int
    /// The wait after the first failed attempt; each further one doubles it.
    public var firstRetryDelay: Duration
    /// The longest wait between attempts, unless the server's `Retry-After` asks for more.
    public var longestRetryDelay: Duration
    /// How many tasks run at once; the rest wait their turn.
    public var concurrentTransfers: Int
    /// How often a running task's byte counts are written to the registry and reported.
    public var progressInterval: Duration
    /// How often a running attempt is checked for a stall or a passed resource deadline.
    public var watchInterval: Duration

    public init(maximumAttempts: Int = 5, firstRetryDelay: Duration = .seconds(1), longestRetryDelay: Duration = .seconds(60),
                concurrentTransfers: Int = 4, progressInterval: Duration = .milliseconds(500), watchInterval: Duration = .milliseconds(250)) {
        precondition(maximumAttempts >= 1 && concurrentTransfers >= 1, "a task needs an attempt, and the engine a transfer at a time")
        self.maximumAttempts = maximumAttempts
        self.firstRetryDelay = firstRetryDelay
        self.longestRetryDelay = longestRetryDelay
        self.concurrentTransfers = concurrentTransfers
        self.progressInterval = progressInterval
        self.watchInterval = watchInterval
    }

    /// The documented policy: 5 attempts, 1 s doubling to 60 s between them, 4 tasks at once.
    public static let standard = TransferPolicy()

    /// The answers retried as a network failure is: the server is busy or briefly broken,
    /// and the same request may well succeed later.
    public static let retriedStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The wait before the attempt after attempt `attempt` (from 1) failed: the doubling
    /// backoff, or the server's `Retry-After` if that asks for longer.
    public func retryDelay(after attempt: Int, retryAfter: Duration? = nil) -> Duration {
        var delay = firstRetryDelay
        for _ in 1..<max(attempt, 1) where delay < longestRetryDelay {
            delay *= 2
        }
        delay = min(delay, longestRetryDelay)
        if let retryAfter, retryAfter > delay {
            return retryAfter
        }
        return delay
    }
}

extension Duration {
    /// The duration in seconds, as Foundation counts time.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
