import AppexIPC
import AppexLocking
import AppexSystem
import AppexWire
public import Foundation
import Glibc

/// A background session, as `URLSession` with a background configuration on Apple's
/// systems: appexd performs its uploads and downloads, whether or not this process goes on,
/// and tells the process attached to the session how they go and how they end.
///
/// Making the session attaches this process to it, on the extension's control channel in an
/// extension or on a connection of the app's own; one process at a time may be attached. Its
/// tasks' events are delivered at least once, and acknowledged once the delegate has had
/// them; events that came while no process was attached are delivered first, then
/// ``URLSessionDelegate/urlSessionDidFinishEvents(forBackgroundURLSession:)``. A session
/// that can't be attached is invalid from the start: its delegate hears why, and a task
/// resumed on it completes with that error as its ``URLSessionTask/error``.
open class URLSession: @unchecked Sendable {
    /// A copy of the configuration the session was made with.
    public let configuration: URLSessionConfiguration
    /// Held until the session is invalidated.
    public var delegate: (any URLSessionDelegate)? { state.withLock { $0.delegate } }
    /// Where the delegate is called; a serial queue of the session's own unless one was given.
    public let delegateQueue: OperationQueue

    struct State {
        var delegate: (any URLSessionDelegate)?
        var sessionDescription: String?
        /// The session's tasks, by the number appexd gave them.
        var tasks: [Int: URLSessionTask] = [:]
        /// Why the session can't be used, if it can't.
        var unusable: (any Error)?
        /// Messages about tasks not known yet, in order: a task's news can arrive before
        /// the answer that numbers it.
        var held: [WireMessage] = []
        var lastDelivered: UInt64 = 0
        /// Set once the app asked to invalidate the session when its tasks end.
        var finishing = false
        var invalidated = false
    }

    let state: Locked<State>
    let link: DaemonLink?
    /// Whether the link is the session's own connection, closed when it is invalidated.
    let ownsLink: Bool
    private let listener = Locked<UInt64?>(nil)

    /// Makes the background session `configuration` names and attaches this process to it;
    /// `delegate` hears its tasks' progress and events on `queue`.
    public init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?, delegateQueue queue: OperationQueue?) {
        self.configuration = configuration.copy()
        delegateQueue = queue ?? Self.serialQueue(named: configuration.identifier ?? "")
        var reached: (link: DaemonLink?, owned: Bool, error: (any Error)?)
        if configuration.sharedContainerIdentifier?.isEmpty ?? true {
            reached = (nil, false, TransferErrors.unusable(.backgroundSessionRequiresSharedContainer,
                "background session \(configuration.identifier ?? "") has no sharedContainerIdentifier",
                recovery: "Set the configuration's sharedContainerIdentifier to an app group the app and its extensions are entitled to."))
        } else if let installed = DaemonLink.installed {
            reached = (installed, false, nil)
        } else {
            do throws(ErrorInfo) {
                reached = (try DaemonLink.open(), true, nil)
            } catch {
                reached = (nil, false, TransferErrors.error(error))
            }
        }
        link = reached.link
        ownsLink = reached.owned
        state = Locked(State(delegate: delegate, unusable: reached.error))
        attach()
    }

    /// A session without a delegate.
    public convenience init(configuration: URLSessionConfiguration) {
        self.init(configuration: configuration, delegate: nil, delegateQueue: nil)
    }

    /// The app's own description of the session.
    public var sessionDescription: String? {
        get { state.withLock { $0.sessionDescription } }
        set { state.withLock { $0.sessionDescription = newValue } }
    }

    /// The session's identifier, from its configuration.
    var identifier: String { configuration.identifier ?? "" }

    // MARK: Tasks

    /// An upload of `fileURL` as the body of `request`, suspended until resumed. appexd
    /// keeps the file from then on, usually as another name for it (a hard link): removing
    /// or replacing the file (a rename over it) doesn't reach the upload, but writing into it
    /// before the upload ends does.
    open func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        URLSessionUploadTask(session: self, request: request, file: fileURL)
    }

    /// A download of `url`, suspended until resumed.
    open func downloadTask(with url: URL) -> URLSessionDownloadTask {
        URLSessionDownloadTask(session: self, request: URLRequest(url: url))
    }

    /// A download of what `request` answers, suspended until resumed.
    open func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        URLSessionDownloadTask(session: self, request: request)
    }

    /// A download that goes on from a cancelled or failed one's `resumeData`, suspended until
    /// resumed; its delegate hears `didResumeAtOffset` once the server answers. Resume data
    /// that is damaged, used already, expired, or another app's makes a task that completes
    /// with the reason when resumed.
    open func downloadTask(withResumeData resumeData: Data) -> URLSessionDownloadTask {
        let decoded = TransferResumeData(resumeData)
        return URLSessionDownloadTask(session: self, request: decoded.map { URLRequest(url: $0.url) }, resumeData: decoded)
    }

    /// The tasks that have not completed, those this process made and those it found when
    /// it attached, given to `completionHandler` on the delegate queue.
    open func getAllTasks(completionHandler: @escaping @Sendable ([URLSessionTask]) -> Void) {
        let tasks = unfinishedTasks
        delegateQueue.addOperation { completionHandler(tasks) }
    }

    /// The tasks that have not completed.
    open var allTasks: [URLSessionTask] {
        get async { unfinishedTasks }
    }

    /// The tasks that have not completed, by kind, given to `completionHandler` on the
    /// delegate queue: Apple's `getTasksWithCompletionHandler(_:)`. A background session has
    /// no data tasks, so the first array is always empty.
    open func getTasksWithCompletionHandler(
        _ completionHandler: @escaping @Sendable ([URLSessionDataTask], [URLSessionUploadTask], [URLSessionDownloadTask]) -> Void
    ) {
        getAllTasks { tasks in
            completionHandler([], tasks.compactMap { $0 as? URLSessionUploadTask }, tasks.compactMap { $0 as? URLSessionDownloadTask })
        }
    }

    /// The tasks that have not completed, by kind, as ``getTasksWithCompletionHandler(_:)`` gives them.
    open var tasks: ([URLSessionDataTask], [URLSessionUploadTask], [URLSessionDownloadTask]) {
        get async {
            let tasks = unfinishedTasks
            return ([], tasks.compactMap { $0 as? URLSessionUploadTask }, tasks.compactMap { $0 as? URLSessionDownloadTask })
        }
    }

    private var unfinishedTasks: [URLSessionTask] {
        state.withLock { $0.tasks.values.filter { $0.state != .completed }.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    // MARK: Invalidating

    /// Invalidates the session once its tasks have completed and their events have been
    /// delivered; the delegate then hears `didBecomeInvalidWithError` with no error, and
    /// the session is free for another process to attach to.
    open func finishTasksAndInvalidate() {
        state.withLock { $0.finishing = true }
        invalidateIfFinished()
    }

    /// Cancels the session's tasks, then invalidates it as ``finishTasksAndInvalidate()``
    /// does, once their cancellations have been delivered.
    open func invalidateAndCancel() {
        for task in unfinishedTasks { task.cancel() }
        finishTasksAndInvalidate()
    }

    func invalidateIfFinished() {
        let finished = state.withLock { state in
            state.finishing && !state.tasks.values.contains { $0.state == .running || $0.state == .canceling }
        }
        if finished { invalidate(nil) }
    }

    /// Ends the session: this process detaches from it, and the delegate hears `error` last.
    func invalidate(_ error: (any Error)?) {
        let delegate = state.withLock { state -> (any URLSessionDelegate)?? in
            guard !state.invalidated else { return .none }
            state.invalidated = true
            state.finishing = false
            if state.unusable == nil {
                state.unusable = error ?? TransferErrors.unusable(.unknown, "background session \(identifier) was invalidated",
                                                                 recovery: "Make the session again to use it.")
            }
            return .some(state.delegate)
        }
        guard case .some(let held) = delegate else { return }
        if let number = listener.withLock({ $0 }) { link?.stopListening(number) }
        // After what was queued before, acknowledgements included: then this process
        // detaches, and the session lets go of its delegate and tasks.
        delegateQueue.addOperation { [self] in
            if ownsLink { link?.connection.close() }
            held?.urlSession(self, didBecomeInvalidWithError: error)
            state.withLock { state in
                state.delegate = nil
                state.tasks = [:]
            }
        }
    }

    // MARK: Helpers

    static func serialQueue(named identifier: String) -> OperationQueue {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "background session \(identifier)"
        return queue
    }

    /// Calls the delegate on the delegate queue, if it is one of type `Delegate`.
    func tell<Delegate>(_ kind: Delegate.Type, _ body: @escaping @Sendable (Delegate) -> Void) {
        delegateQueue.addOperation { [self] in
            if let delegate = state.withLock({ $0.delegate }) as? Delegate { body(delegate) }
        }
    }

    func setListener(_ number: UInt64) {
        listener.withLock { $0 = number }
    }
}
