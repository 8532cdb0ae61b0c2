import Foundation

/// A server's demand for a credential, as Foundation's `URLAuthenticationChallenge`: the
/// task's delegate answers it with an ``URLSession/AuthChallengeDisposition``
/// (`urlSession(_:task:didReceive:completionHandler:)`).
open class URLAuthenticationChallenge: @unchecked Sendable {
    /// Where the demand came from, and how it wants to be answered.
    public let protectionSpace: URLProtectionSpace
    /// A credential kept for the space, which default handling would send; nil if none is
    /// kept, or if the one kept was refused already.
    public let proposedCredential: URLCredential?
    /// How many times the task's credentials for the space were refused before this.
    public let previousFailureCount: Int
    /// The answer that made the demand (`401`), if there is one.
    public let failureResponse: URLResponse?
    /// Why the last attempt failed, if a protocol says.
    public let error: (any Error)?
    /// Who made the challenge, for the older, connection-based ways of answering it; a
    /// session's delegate answers through its completion handler instead, and a session's
    /// challenges have none.
    public let sender: (any URLAuthenticationChallengeSender)?

    public convenience init(protectionSpace space: URLProtectionSpace, proposedCredential credential: URLCredential?, previousFailureCount: Int,
                failureResponse response: URLResponse?, error: (any Error)?, sender: any URLAuthenticationChallengeSender) {
        self.init(space, proposedCredential: credential, previousFailureCount: previousFailureCount, failureResponse: response,
                  error: error, sender: sender)
    }

    /// `challenge` again, with another sender.
    public convenience init(authenticationChallenge challenge: URLAuthenticationChallenge, sender: any URLAuthenticationChallengeSender) {
        self.init(challenge.protectionSpace, proposedCredential: challenge.proposedCredential, previousFailureCount: challenge.previousFailureCount,
                  failureResponse: challenge.failureResponse, error: challenge.error, sender: sender)
    }

    /// A session's challenge, which has no sender.
    public init(_ space: URLProtectionSpace, proposedCredential: URLCredential?, previousFailureCount: Int, failureResponse: URLResponse?,
                error: (any Error)? = nil, sender: (any URLAuthenticationChallengeSender)? = nil) {
        protectionSpace = space
        self.proposedCredential = proposedCredential
        self.previousFailureCount = previousFailureCount
        self.failureResponse = failureResponse
        self.error = error
        self.sender = sender
    }
}

/// Who answers a challenge made outside a session, as Foundation's
/// `URLAuthenticationChallengeSender`.
public protocol URLAuthenticationChallengeSender: AnyObject, Sendable {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge)
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge)
    func cancel(_ challenge: URLAuthenticationChallenge)
    func performDefaultHandling(for challenge: URLAuthenticationChallenge)
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge)
}

extension URLAuthenticationChallengeSender {
    /// As Apple's, optional: continues without a credential.
    public func performDefaultHandling(for challenge: URLAuthenticationChallenge) { continueWithoutCredential(for: challenge) }
    /// As Apple's, optional: continues without a credential.
    public func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) { continueWithoutCredential(for: challenge) }
}
