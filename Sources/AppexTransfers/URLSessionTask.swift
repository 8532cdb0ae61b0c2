public import Foundation
import AppexWire
import AppexLocking

/// One upload or download of a background ``URLSession``, as `URLSessionTask` on Apple's
/// systems. It is made suspended; ``resume()`` hands it to appexd, which numbers it and
/// performs it, and from then on its counts follow what appexd reports.
open class URLSessionTask: @unchecked Sendable {
    /// Where the task is in its life.
    public enum State: Int, Sendable {
        case running = 0
        case suspended = 1
        case canceling = 2
        case completed = 3
    }

    struct Status {
        var taskIdentifier = 0
        var state = State.suspended
        var response: URLResponse?
        var error: (any Error)?
        var countOfBytesSent: Int64 = 0
        var countOfBytesExpectedToSend: Int64 = -1
        var countOfBytesReceived: Int64 = 0
        var countOfBytesExpectedToReceive: Int64 = -1
        var taskDescription: String?
        /// Whether the delegate has heard where a download made from resume data went on from.
        var toldResumed = false
        /// Whether an in-process download's file went to its completion handler or delegate.
        var downloadHandedOver = false
        var earliestBeginDate: Date?
        var countOfBytesClientExpectsToSend: Int64 = NSURLSessionTransferSizeUnknown
        var countOfBytesClientExpectsToReceive: Int64 = NSURLSessionTransferSizeUnknown
        var priority = URLSessionTask.defaultPriority
        /// The request an in-process task was redirected to, if it followed a redirect.
        var redirectedRequest: URLRequest?
    }

    /// The request as it was given.
    public let originalRequest: URLRequest?
    /// The session that made the task, or found it when it attached.
    public let session: URLSession
    /// An upload's file.
    let file: URL?
    /// A download's resume data, which it was made from.
    let resumeData: TransferResumeData?
    /// A task of an in-process session: its body, its completion handler, and the
    /// transport's task once resumed.
    let inProcess: InProcessPart?
    let status: Locked<Status>
    private let taskDelegate = Locked<(any URLSessionTaskDelegate)?>(nil)

    init(session: URLSession, request: URLRequest?, file: URL? = nil, resumeData: TransferResumeData? = nil, inProcess: InProcessPart? = nil) {
        self.session = session
        originalRequest = request
        self.file = file
        self.resumeData = resumeData
        self.inProcess = inProcess
        status = Locked(Status())
        // A task of an in-process session is numbered when it is made, as on Apple's systems;
        // a background task when appexd makes it.
        if inProcess != nil {
            let number = session.nextLocalTaskNumber()
            status.withLock { $0.taskIdentifier = number }
        }
    }

    /// The task's own delegate, told of it before the session's, as Apple's (iOS 15): a
    /// message it takes goes to it instead of the session's delegate.
    public var delegate: (any URLSessionTaskDelegate)? {
        get { taskDelegate.withLock { $0 } }
        set { taskDelegate.withLock { $0 = newValue } }
    }

    /// The task's number within its session, which appexd gives it when it is resumed (0
    /// until then) and which the app sees again when it re-creates the session.
    public var taskIdentifier: Int { status.withLock { $0.taskIdentifier } }
    public var state: State { status.withLock { $0.state } }
    /// The request as last made: the one an in-process task was redirected to, if it was;
    /// the original request otherwise (appexd follows a background task's redirects itself).
    public var currentRequest: URLRequest? { status.withLock { $0.redirectedRequest } ?? originalRequest }
    /// The server's answer, once the task has completed with one.
    public var response: URLResponse? { status.withLock { $0.response } }
    /// Why the task failed, once it has.
    public var error: (any Error)? { status.withLock { $0.error } }
    public var countOfBytesSent: Int64 { status.withLock { $0.countOfBytesSent } }
    /// -1 while unknown.
    public var countOfBytesExpectedToSend: Int64 { status.withLock { $0.countOfBytesExpectedToSend } }
    public var countOfBytesReceived: Int64 { status.withLock { $0.countOfBytesReceived } }
    /// -1 while unknown.
    public var countOfBytesExpectedToReceive: Int64 { status.withLock { $0.countOfBytesExpectedToReceive } }

    /// When a background task may start at the soonest, as Apple's: appexd keeps it waiting
    /// until then. Set before ``resume()``; an in-process task ignores it, as Apple's does.
    public var earliestBeginDate: Date? {
        get { status.withLock { $0.earliestBeginDate } }
        set { status.withLock { $0.earliestBeginDate = newValue } }
    }

    /// How many bytes the app expects the task to send, for the system's scheduling; kept,
    /// and not acted on (appexd starts each task when it may).
    public var countOfBytesClientExpectsToSend: Int64 {
        get { status.withLock { $0.countOfBytesClientExpectsToSend } }
        set { status.withLock { $0.countOfBytesClientExpectsToSend = newValue } }
    }

    /// How many bytes the app expects the task to receive; kept, and not acted on.
    public var countOfBytesClientExpectsToReceive: Int64 {
        get { status.withLock { $0.countOfBytesClientExpectsToReceive } }
        set { status.withLock { $0.countOfBytesClientExpectsToReceive = newValue } }
    }

    /// How the task ranks among the session's, from 0 to 1; kept, and not acted on.
    public var priority: Float {
        get { status.withLock { $0.priority } }
        set { status.withLock { $0.priority = min(max(newValue, 0), 1) } }
    }

    /// The task's progress in bytes: sent, for an upload; received, for any other task.
    public let progress = Progress(totalUnitCount: -1)

    /// Brings ``progress`` up to the byte counts.
    func reportProgress() {
        let upload = self is URLSessionUploadTask
        let (done, total) = status.withLock { status in
            upload ? (status.countOfBytesSent, status.countOfBytesExpectedToSend) : (status.countOfBytesReceived, status.countOfBytesExpectedToReceive)
        }
        progress.totalUnitCount = total
        progress.completedUnitCount = done
    }

    /// Apple's ranks: 0.5, 0.25 and 0.75.
    public static let defaultPriority: Float = 0.5
    public static let lowPriority: Float = 0.25
    public static let highPriority: Float = 0.75

    /// The app's own description of the task, kept in this process only.
    public var taskDescription: String? {
        get { status.withLock { $0.taskDescription } }
        set { status.withLock { $0.taskDescription = newValue } }
    }

    /// Hands the task to appexd, which performs it whether or not this process goes on; a
    /// task that can't be made completes at once with the reason. It returns once appexd
    /// has numbered the task. Only a suspended task resumes.
    open func resume() {
        session.start(self)
    }

    /// Cancels the task: it completes with `URLError.cancelled`, unless it ended first.
    open func cancel() {
        session.cancel(self)
    }

    /// Pauses an in-process task, which ``resume()`` goes on with. A background task goes
    /// on regardless: appexd performs it.
    open func suspend() {
        guard let inProcess else { return }
        let paused = status.withLock { status in
            guard status.state == .running else { return false }
            status.state = .suspended
            return true
        }
        if paused { inProcess.task?.suspend() }
    }

    /// Takes in what appexd reports of the task; answers how many more bytes were sent and
    /// received since the last report.
    func apply(_ info: TransferTaskInfo) -> (sent: Int64, received: Int64) {
        let counts = status.withLock { status in
            let sent = info.bytesSent - status.countOfBytesSent
            let received = info.bytesReceived - status.countOfBytesReceived
            status.taskIdentifier = Int(clamping: info.taskIdentifier)
            if status.state == .suspended { status.state = .running }
            status.countOfBytesSent = info.bytesSent
            status.countOfBytesExpectedToSend = info.bytesExpectedToSend
            status.countOfBytesReceived = info.bytesReceived
            status.countOfBytesExpectedToReceive = info.bytesExpectedToReceive
            return (sent, received)
        }
        reportProgress()
        return counts
    }

    /// Takes in the server's answer, as `info` reports it, if there is one.
    func answered(_ info: TransferTaskInfo) {
        guard info.statusCode > 0 else { return }
        let response = HTTPURLResponse(url: URL(string: info.url), statusCode: info.statusCode, expectedContentLength: info.bytesExpectedToReceive,
                                       headerFields: info.responseHeaders.map { (name: $0.name, value: $0.value) })
        status.withLock { $0.response = response }
    }

    /// Ends the task as `info` says it ended.
    func complete(_ info: TransferTaskInfo) {
        _ = apply(info)
        answered(info)
        complete(response: response, error: TransferErrors.completion(of: info))
    }

    /// Ends the task with `error`, without an answer.
    func complete(response: URLResponse? = nil, error: (any Error)?) {
        status.withLock { status in
            status.state = .completed
            status.response = response
            status.error = error
        }
    }
}

/// A task that gives the answer's body to the delegate in memory, as `URLSessionDataTask`:
/// in a background session, an upload (``URLSessionUploadTask``), as on Apple's platforms,
/// which make no other data task in one.
open class URLSessionDataTask: URLSessionTask, @unchecked Sendable {}

/// A background task that sends a file as a request's body, as `URLSessionUploadTask`: a
/// data task, whose delegate hears the start of the server's answer body.
open class URLSessionUploadTask: URLSessionDataTask, @unchecked Sendable {}

/// A background task that writes the answer's body to a file in the group's container, as
/// `URLSessionDownloadTask`.
open class URLSessionDownloadTask: URLSessionTask, @unchecked Sendable {
    /// Cancels the download, as ``cancel()`` does, and gives `completionHandler`, on no
    /// particular queue, its resume data if it may resume: a `GET` whose server gave an ETag
    /// or Last-Modified, with bytes kept. appexd keeps them for 7 days; nil otherwise.
    open func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        session.cancel(self, producingResumeData: completionHandler)
    }

    /// Cancels the download, and returns its resume data if it may resume.
    open func cancelByProducingResumeData() async -> Data? {
        await withCheckedContinuation { continuation in
            cancel { continuation.resume(returning: $0) }
        }
    }

    /// Where a download made from resume data went on from, the first time appexd says:
    /// the bytes kept, or 0 if the server started over. The count received is set there, so
    /// that the bytes written are counted from it.
    func resumed(_ info: TransferTaskInfo) -> Int64? {
        guard info.resumedAtOffset >= 0 else { return nil }
        return status.withLock { status in
            guard !status.toldResumed else { return nil }
            status.toldResumed = true
            status.countOfBytesReceived = info.resumedAtOffset
            return info.resumedAtOffset
        }
    }
}
