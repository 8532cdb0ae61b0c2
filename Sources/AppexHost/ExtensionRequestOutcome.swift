public import AppexItems
public import Foundation

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

extension ExtensionRequestOutcome {
    /// The returned items, if the request completed.
    public var items: [NSExtensionItem]? {
        if case .completed(let items) = self { return items }
        return nil
    }

    /// The interruption, if the request was interrupted.
    public var interruption: ExtensionInterruption? {
        if case .interrupted(let interruption) = self { return interruption }
        return nil
    }

    /// The error, if the request was cancelled.
    public var cancellationError: NSError? {
        if case .cancelled(let error) = self { return error as NSError }
        return nil
    }
}
