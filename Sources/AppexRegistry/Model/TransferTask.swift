public import Foundation

/// A background transfer that appexd performs for a session (docs/transfers.md), and where
/// it stands: the registry's `transferTask` row.
public struct TransferTask: Sendable, Hashable {
    /// What the task does.
    public enum Kind: String, Sendable, Codable {
        /// Sends a file as a request's body.
        case upload
        /// Writes a response's body to a file.
        case download
    }

    /// Where the task is in its life.
    public enum State: String, Sendable, Codable {
        /// To start, or to try again once `notBefore` passes.
        case waiting
        /// The transfers' process performs it now.
        case running
        /// The server answered; `statusCode` says how.
        case completed
        /// It ended without an answer worth keeping; `error` and `errorCode` say why.
        case failed
        /// A process attached to its session cancelled it.
        case cancelled

        /// Whether the task has ended.
        public var isFinal: Bool { self == .completed || self == .failed || self == .cancelled }
    }

    /// The request to make: a URL, a method and header fields, in their order, and how long
    /// it may go without a byte.
    public struct Request: Sendable, Hashable, Codable {
        public var url: URL
        public var method: String
        public var headers: [Header]
        /// `timeoutIntervalForRequest`: the longest wait for the next byte, in seconds, after
        /// which an attempt fails and is retried.
        public var timeout: TimeInterval

        /// One header field.
        public struct Header: Sendable, Hashable, Codable {
            public var name: String
            public var value: String

            public init(_ name: String, _ value: String) {
                self.name = name
                self.value = value
            }
        }

        public init(url: URL, method: String = "GET", headers: [Header] = [], timeout: TimeInterval = Request.defaultTimeout) {
            self.url = url
            self.method = method
            self.headers = headers
            self.timeout = timeout
        }

        /// Apple's `timeoutIntervalForRequest` default: 60 seconds.
        public static let defaultTimeout: TimeInterval = 60

        /// The value of the header field `name`, compared without case, if the request has it.
        public func value(of name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// The task's identity; uploads send it as `Idempotency-Key`.
    public var id: UUID
    /// The containing app whose session it is.
    public var appIdentifier: String
    /// The session's identifier, as `URLSessionConfiguration.background(withIdentifier:)` named it.
    public var sessionIdentifier: String
    /// `URLSessionTask.taskIdentifier`: unique within the session, from 1.
    public var taskIdentifier: Int
    /// The app group whose container downloads land in (`sharedContainerIdentifier`).
    public var groupIdentifier: String
    /// The bundle that created the task: the app, or one of its extensions.
    public var owner: String
    public var kind: Kind
    public var request: Request
    /// An upload's body.
    public var bodyFile: URL?
    /// Where a download's body goes once complete; `.partial` beside it until then.
    public var destination: URL?
    public var state: State
    /// The attempts started so far.
    public var attempts: Int
    /// When a waiting task may start again, after a failed attempt.
    public var notBefore: Date?
    public var bytesSent: Int64
    /// -1 while unknown.
    public var bytesExpectedToSend: Int64
    public var bytesReceived: Int64
    /// -1 while unknown.
    public var bytesExpectedToReceive: Int64
    /// The server's answer, once there is one.
    public var statusCode: Int?
    /// A download's ETag or Last-Modified, for resuming it with `If-Range`.
    public var validator: String?
    /// The header fields of the server's answer to the last attempt, in their order, at most
    /// ``keptResponseHeaderBytes`` of them; nil until it answered.
    public var responseHeaders: [Request.Header]?
    /// Why the last attempt failed, or why the task did, in words.
    public var error: String?
    /// The `URLError` code of `error`, as `URLSession` would report it.
    public var errorCode: URLError.Code?
    public var createdAt: Date
    /// When the task fails however far it got (`timeoutIntervalForResource`).
    public var resourceDeadline: Date
    /// Whether the task's events launch the app when no process of it has the session
    /// (`sessionSendsLaunchEvents`).
    public var sendsLaunchEvents: Bool
    /// An ended download's kept bytes wait to be resumed until then (its resume data); nil
    /// if they went, or another task took them.
    public var resumableUntil: Date?
    /// The ended download whose kept bytes this one took, made from its resume data.
    public var resumesFrom: UUID?
    /// Where this task, made from resume data, went on from: the bytes kept if the server
    /// resumed, 0 if it started over; nil until its first answer.
    public var resumedAtOffset: Int64?

    public init(id: UUID = UUID(), appIdentifier: String, sessionIdentifier: String, taskIdentifier: Int = 0, groupIdentifier: String,
                owner: String, kind: Kind, request: Request, bodyFile: URL? = nil, destination: URL? = nil, createdAt: Date = Date(),
                resourceTimeout: TimeInterval = TransferTask.defaultResourceTimeout, sendsLaunchEvents: Bool = true) {
        self.id = id
        self.appIdentifier = appIdentifier
        self.sessionIdentifier = sessionIdentifier
        self.taskIdentifier = taskIdentifier
        self.groupIdentifier = groupIdentifier
        self.owner = owner
        self.kind = kind
        self.request = request
        self.bodyFile = bodyFile
        self.destination = destination
        state = .waiting
        attempts = 0
        bytesSent = 0
        bytesExpectedToSend = -1
        bytesReceived = 0
        bytesExpectedToReceive = -1
        self.createdAt = createdAt
        resourceDeadline = createdAt.addingTimeInterval(resourceTimeout)
        self.sendsLaunchEvents = sendsLaunchEvents
    }

    /// Apple's `timeoutIntervalForResource` default: 7 days.
    public static let defaultResourceTimeout: TimeInterval = 7 * 24 * 3600

    /// The most bytes of an answer's header fields kept (names and values): 16 KiB. A
    /// server's header fields may be far longer; the rest are dropped.
    public static let keptResponseHeaderBytes = 16 * 1024

    /// The most bytes of an upload's answer body kept for the delegate: 64 KiB, which go
    /// to it in the event's message.
    public static let keptAnswerBytes: Int64 = 64 * 1024

    /// How long an ended download's kept bytes wait for its resume data to be used: 7 days.
    public static let resumeDataLifetime: TimeInterval = 7 * 24 * 3600

    /// Whether its kept bytes could be resumed, as Apple's systems decide: a GET whose
    /// server gave an ETag or Last-Modified.
    public var mayResume: Bool {
        kind == .download && request.method.uppercased() == "GET" && validator != nil
    }

    /// A download's file until it is complete.
    public var partialFile: URL? {
        destination.map { $0.deletingLastPathComponent().appendingPathComponent($0.lastPathComponent + ".partial") }
    }
}

/// What a task's end leaves for its app to be told, kept until the app acknowledges it.
public struct TransferEvent: Sendable, Hashable {
    /// The delegate call it becomes.
    public enum Kind: String, Sendable, Codable {
        /// `urlSession(_:downloadTask:didFinishDownloadingTo:)`, with the file.
        case finishedDownloading
        /// `urlSession(_:task:didCompleteWithError:)`.
        case completed
        /// `urlSession(_:dataTask:didReceive:)`: an upload's answer body, in the file.
        case receivedData
    }

    /// Its place in the order of all events; acknowledging a sequence number acknowledges it.
    public var sequence: Int64
    public var taskID: UUID
    public var kind: Kind
    /// A finished download's file, or the file holding an upload's answer body.
    public var location: URL?
    public var createdAt: Date
}
