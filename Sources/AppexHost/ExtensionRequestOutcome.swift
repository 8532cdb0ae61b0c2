public import AppexItems

/// How a request ended. Every request ends exactly one of these ways.
public enum ExtensionRequestOutcome: Sendable {
    /// The extension completed the request with these items.
    case completed([NSExtensionItem])
    /// The extension cancelled the request with this error, or the host cancelled it, in
    /// which case the error is `NSCocoaErrorDomain` `NSUserCancelledError`.
    case cancelled(any Error)
    /// The request ended without an answer, for this reason.
    case interrupted(ExtensionInterruption)
}
