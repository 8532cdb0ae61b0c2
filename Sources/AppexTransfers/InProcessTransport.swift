public import Foundation

/// What performs the tasks of an in-process ``URLSession`` (``URLSessionConfiguration/default``
/// or ``URLSessionConfiguration/ephemeral``): the AppexNetworking product's
/// `FoundationTransport`, over FoundationNetworking. It is found by name when the first
/// in-process session is made, so that only a program linked with AppexNetworking loads
/// libcurl and the libraries it needs, which cost each launch about 4.5 ms (docs/transfers.md,
/// "In-process sessions"); extension code imports AppexKit alone either way.
public protocol InProcessTransport: AnyObject, Sendable {
    /// A transport for one session, with its configuration's settings.
    init(settings: InProcessSettings)

    /// A suspended task that makes `request`, sending `body`, and reports through `events`.
    /// The answer's body comes as data for every task, a download's too: the session writes
    /// a download's file itself, so that it can keep the bytes to resume from.
    func task(for request: URLRequest, body: InProcessBody, events: InProcessEvents) -> any InProcessTask

    /// Lets go of the transport's connections once its tasks end; cancels them first if asked.
    func invalidate(cancellingTasks: Bool)
}

/// One task of an ``InProcessTransport``.
public protocol InProcessTask: AnyObject, Sendable {
    func resume()
    func suspend()
    func cancel()
}

/// The settings of an in-process session's configuration that its transport applies.
public struct InProcessSettings: Sendable {
    public var ephemeral: Bool
    public var timeoutIntervalForRequest: TimeInterval
    public var timeoutIntervalForResource: TimeInterval
    public var httpAdditionalHeaders: [String: String]
    public var requestCachePolicy: URLRequest.CachePolicy
    public var httpShouldSetCookies: Bool
    public var httpMaximumConnectionsPerHost: Int
}

/// What an in-process request sends as its body.
public enum InProcessBody: Sendable {
    case none
    case data(Data)
    case file(URL)
}

/// How a transport reports a task, in order: its answer, its body, its progress, and its
/// end, each once but the body and the progress; between them, whenever the server asks,
/// challenges and redirects, which wait for their answers.
public struct InProcessEvents: Sendable {
    /// The answer's head: an `HTTPURLResponse`, with its header fields, for HTTP.
    public var answered: @Sendable (URLResponse) -> Void
    /// Part of the answer's body.
    public var received: @Sendable (Data) -> Void
    /// The body went on: bytes sent now, in all, and expected in all (-1 if unknown).
    public var sent: @Sendable (Int64, Int64, Int64) -> Void
    /// The task ended: with no error if the server answered, whatever its status.
    public var completed: @Sendable ((any Error)?) -> Void
    /// The server asks for a credential: the handler, called once, says how to answer.
    public var challenged: @Sendable (URLAuthenticationChallenge, @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) -> Void
    /// The server redirects to the request given: the handler, called once, gives the
    /// request to make instead, or nil to take the redirect as the answer.
    public var redirected: @Sendable (HTTPURLResponse, URLRequest, @escaping @Sendable (URLRequest?) -> Void) -> Void

    public init(answered: @escaping @Sendable (URLResponse) -> Void, received: @escaping @Sendable (Data) -> Void,
                sent: @escaping @Sendable (Int64, Int64, Int64) -> Void, completed: @escaping @Sendable ((any Error)?) -> Void,
                challenged: @escaping @Sendable (URLAuthenticationChallenge, @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) -> Void,
                redirected: @escaping @Sendable (HTTPURLResponse, URLRequest, @escaping @Sendable (URLRequest?) -> Void) -> Void) {
        self.answered = answered
        self.received = received
        self.sent = sent
        self.completed = completed
        self.challenged = challenged
        self.redirected = redirected
    }
}

enum InProcessTransports {
    /// `AppexNetworking.FoundationTransport`'s mangled name: the runtime finds a type by it
    /// in whatever the program links, with no reference from here.
    static let mangledName = "15AppexNetworking19FoundationTransportC"

    /// The transport type the program links, if it links one.
    static var linked: (any InProcessTransport.Type)? {
        _typeByName(mangledName) as? any InProcessTransport.Type
    }

    /// Why a session can't run tasks in this process: the program doesn't link AppexNetworking.
    static var missing: any Error {
        URLError(.unsupportedURL, userInfo: [
            NSLocalizedDescriptionKey: "this process can't make requests itself: the URLSession of a default or ephemeral configuration runs its tasks through the AppexNetworking product, which this program doesn't link",
            NSLocalizedRecoverySuggestionErrorKey: "Add .product(name: \"AppexNetworking\", package: \"appex\") to the target's dependencies (docs/transfers.md, \"In-process sessions\"); the code stays as it is.",
        ])
    }
}
