public import Foundation

/// What a background ``URLSession`` tells its delegate about itself, as on Apple's systems.
/// Every method has a default that does nothing; the session calls them on its delegate
/// queue, one at a time if the queue is serial (the session's own queue is).
public protocol URLSessionDelegate: AnyObject, Sendable {
    /// The session ended: invalidated by the app (`error` nil), or made unusable, as when
    /// another process is attached to it or its group can't be used (`error` says why).
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)

    /// Every event that waited for the session, while no process was attached to it, has
    /// been delivered: the moment to call the completion handler that
    /// `handleEventsForBackgroundURLSession` gave the app.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)

    /// A session-wide demand for credentials (a server's certificate, a client
    /// certificate, NTLM or Negotiate). Neither kind of session makes one here: libcurl
    /// checks servers' certificates against the system's authorities itself, and only HTTP
    /// Basic is answered, which is a task's (docs/transfers.md, "Answers, challenges and
    /// redirects").
    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)

    /// The `async` form of the session-wide challenge; the default handling if neither is
    /// implemented.
    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async -> (URLSession.AuthChallengeDisposition, URLCredential?)
}

/// What a background session tells its delegate about a task.
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    /// The task ended: `error` is nil if the server answered (whatever its status code,
    /// which `task.response` holds), `URLError.cancelled` if it was cancelled, else why it failed.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)

    /// An upload's body went on: `bytesSent` more since the last call.
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64)

    /// The server asks an in-process task for a credential (HTTP Basic, answering `401`):
    /// `.useCredential` with one sends it; `.performDefaultHandling` sends one the session
    /// kept for the space, or else takes the `401` as the answer; `.cancelAuthenticationChallenge`
    /// cancels the task. Asked of a task with a completion handler too, as Apple's are.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)

    /// The `async` form of the task's challenge; the default handling if neither is implemented.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?)

    /// The server redirects an in-process task: `completionHandler` gets the request to make
    /// instead (`request`, changed or not), or nil to take the redirect as the answer. A
    /// background session follows redirects without asking, as Apple's does.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void)

    /// The `async` form of the redirect; `request` if neither is implemented.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest) async -> URLRequest?
}

/// What a background session tells its delegate about a data task's answer: here, an
/// upload's, which is a data task.
public protocol URLSessionDataDelegate: URLSessionTaskDelegate {
    /// Part of the answer's body arrived: here, once, before the task completes, the first
    /// 64 KiB of it (appexd keeps no more).
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)

    /// An in-process data task's answer came, before its body: `completionHandler` says what
    /// to do with it, and no body reaches the delegate until it is called. Not asked of a
    /// task with a completion handler, nor in a background session, whose answer comes as
    /// the task ends.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void)

    /// The `async` form of the answer's disposition; `.allow` if neither is implemented.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) async -> URLSession.ResponseDisposition

    /// The data task became `downloadTask`, as `.becomeDownload` asked: the rest of the
    /// answer goes to a file, which the download delegate's methods hear about.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask)
}

/// What a background session tells its delegate about a download.
public protocol URLSessionDownloadDelegate: URLSessionTaskDelegate {
    /// The download is complete at `location`, in the group's container. The file is
    /// removed when this returns: read it or move it before.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL)

    /// A download's body went on: `bytesWritten` more since the last call.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)

    /// A download made from resume data was answered: it goes on from `fileOffset`, the
    /// bytes kept, or from 0 if the server would not resume; `expectedTotalBytes` is the
    /// whole file's length, or ``NSURLSessionTransferSizeUnknown``.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64)
}

extension URLSession {
    /// What a delegate does with a data task's answer, as Apple's: with Apple's values.
    public enum ResponseDisposition: Int, Sendable {
        /// Cancels the task, which ends with `URLError.cancelled`.
        case cancel = 0
        /// Goes on: the body reaches the delegate.
        case allow = 1
        /// Goes on as a download task (``URLSessionDataDelegate/urlSession(_:dataTask:didBecome:)``).
        case becomeDownload = 2
        /// Goes on as a stream task on Apple's systems. Appex has no stream tasks: the task
        /// ends with `URLError.unsupportedURL`, which says so.
        case becomeStream = 3
    }

    /// How a delegate answers a challenge, as Apple's: with Apple's values.
    public enum AuthChallengeDisposition: Int, Sendable {
        /// Sends the credential given with it.
        case useCredential = 0
        /// As if the delegate had not been asked: a credential the session kept for the
        /// space is sent, or else the server's `401` is the answer.
        case performDefaultHandling = 1
        /// Cancels the task, which ends with `URLError.cancelled`.
        case cancelAuthenticationChallenge = 2
        /// Declines this way of answering; as the server offered no other here, the `401`
        /// is the answer.
        case rejectProtectionSpace = 3
    }
}

extension URLSessionDelegate {
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {}

    public func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        Task {
            let (disposition, credential) = await urlSession(session, didReceive: challenge)
            completionHandler(disposition, credential)
        }
    }

    public func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        (.performDefaultHandling, nil)
    }
}

extension URLSessionTaskDelegate {
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                           totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}

    public func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        Task {
            let (disposition, credential) = await urlSession(session, task: task, didReceive: challenge)
            completionHandler(disposition, credential)
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        (.performDefaultHandling, nil)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        Task { completionHandler(await urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request)) }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest) async -> URLRequest? {
        request
    }
}

extension URLSessionDataDelegate {
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        Task { completionHandler(await urlSession(session, dataTask: dataTask, didReceive: response)) }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) async -> URLSession.ResponseDisposition {
        .allow
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask) {}
}

extension URLSessionDownloadDelegate {
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
                           expectedTotalBytes: Int64) {}
}
