import AppexRegistry
import Foundation

/// How one attempt at a task ended, for the engine to decide what the task does next.
enum AttemptOutcome: Sendable {
    /// The server answered `statusCode`; a download's body, or the kept start of an
    /// upload's answer body, is at `location`. A retried status may come with the server's
    /// `Retry-After`.
    case answered(statusCode: Int, retryAfter: Duration?, location: URL?)
    /// No answer, or an incomplete one (refused, reset, closed early, a disk error): the next
    /// attempt may do better.
    case failed(TransferFailure)
    /// Nothing another attempt could change, such as an upload's file gone: the task fails.
    case impossible(TransferFailure)
    /// Stopped from outside the attempt.
    case interrupted(Interruption)
}

/// Why an attempt was stopped from outside.
enum Interruption: Sendable, Equatable {
    /// A process attached to the session cancelled the task.
    case cancelled
    /// No byte went either way for the request's timeout.
    case stalled(TimeInterval)
    /// The task's resource deadline passed.
    case resourceTimeout
    /// The engine is stopping: its process shuts down.
    case stopping
}
