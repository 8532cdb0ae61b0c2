import AppexIPC
import AppexLocking
import AppexSystem
import AppexWire
public import Foundation
import Glibc

/// A session, as `URLSession` on Apple's systems. With a background configuration, appexd
/// performs its uploads and downloads, whether or not this process goes on, and tells the
/// process attached to the session how they go and how they end. With ``URLSessionConfiguration/default``
/// or ``URLSessionConfiguration/ephemeral``, and as ``shared``, its tasks run in this
/// process, through the AppexNetworking product (URLSession+InProcess.swift).
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
        /// The number of an in-process session's last task: it numbers its own.
        var lastLocalTask = 0
        /// Credentials the delegate gave to be kept (`forSession` or longer), by the
        /// protection space they answered: an in-process session proposes them again.
        var credentials: [URLProtectionSpace: URLCredential] = [:]
        /// Set once the app asked to invalidate the session when its tasks end.
        var finishing = false
        var invalidated = false
    }

    let state: Locked<State>
    /// What runs an in-process session's tasks; nil for a background session, and for an
    /// in-process one in a program that doesn't link AppexNetworking.
    let transport: (any InProcessTransport)?
    let link: DaemonLink?
    /// Whether the link is the session's own connection, closed when it is invalidated.
    let ownsLink: Bool
    private let listener = Locked<UInt64?>(nil)

    /// Makes the background session `configuration` names and attaches this process to it;
    /// `delegate` hears its tasks' progress and events on `queue`.
    public init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?, delegateQueue queue: OperationQueue?) {
        self.configuration = configuration.copy()
        delegateQueue = queue ?? Self.serialQueue(named: configuration.identifier ?? "in-process")
        guard configuration.identifier != nil else {
            transport = InProcessTransports.linked?.init(settings: self.configuration.inProcessSettings)
            link = nil
            ownsLink = false
            state = Locked(State(delegate: delegate, unusable: transport == nil ? InProcessTransports.missing : nil))
            return
        }
        transport = nil
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

    /// The process's in-process session, of a ``URLSessionConfiguration/default``
    /// configuration and no delegate, which is never invalidated.
    open class var shared: URLSession { sharedSession }
    private static let sharedSession = URLSession(configuration: .default)

    /// The app's own description of the session.
    public var sessionDescription: String? {
        get { state.withLock { $0.sessionDescription } }
        set { state.withLock { $0.sessionDescription = newValue } }
    }

    /// The session's identifier, from its configuration; "" for an in-process one.
    var identifier: String { configuration.identifier ?? "" }

    // MARK: Tasks

    /// An upload of `fileURL` as the body of `request`, suspended until resumed. appexd
    /// keeps the file from then on, usually as another name for it (a hard link): removing
    /// or replacing the file (a rename over it) doesn't reach the upload, but writing into it
    /// before the upload ends does.
    open func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        URLSessionUploadTask(session: self, request: request, file: fileURL, inProcess: inProcessPart(.file(fileURL)))
    }

    /// A download of `url`, suspended until resumed.
    open func downloadTask(with url: URL) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url))
    }

    /// A download of what `request` answers, suspended until resumed.
    open func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        URLSessionDownloadTask(session: self, request: request, inProcess: inProcessPart(.none))
    }

    /// What a task of an in-process session needs to run, heard by the delegate; nil in a
    /// background session.
    private func inProcessPart(_ body: InProcessBody) -> InProcessPart? {
        configuration.identifier == nil ? InProcessPart(body: body, completion: nil) : nil
    }

    /// A download that goes on from a cancelled or failed one's `resumeData`, suspended until
    /// resumed; its delegate hears `didResumeAtOffset` once the server answers. Resume data
    /// that is damaged, used already, expired, or another app's makes a task that completes
    /// with the reason when resumed.
    open func downloadTask(withResumeData resumeData: Data) -> URLSessionDownloadTask {
        guard configuration.identifier != nil else { return inProcessDownloadTask(resumingFrom: resumeData, completion: nil) }
        let decoded = TransferResumeData(resumeData)
        return URLSessionDownloadTask(session: self, request: decoded.map { URLRequest(url: $0.url) }, resumeData: decoded)
    }

    /// An in-process download that goes on from `resumeData`, made by an in-process session
    /// of this process; any other resume data makes a task that completes with why.
    private func inProcessDownloadTask(resumingFrom resumeData: Data, completion: InProcessPart.Completion?) -> URLSessionDownloadTask {
        let decoded = InProcessResumeData(resumeData)
        let resuming: Result<InProcessResumeData, URLError> = decoded.map { .success($0) } ?? .failure(InProcessResumeData.unusable(
            TransferResumeData(resumeData) != nil ? "it is a background session's, which only a background session can resume" : "it is damaged, or not resume data"))
        return URLSessionDownloadTask(session: self, request: decoded.map { URLRequest(url: $0.url) },
                                      inProcess: InProcessPart(body: .none, completion: completion, resuming: resuming))
    }

    // In-process tasks, as Apple's: data, upload and download tasks with a completion handler
    // or the delegate, and their `async` forms. A background session takes none of them but
    // the delegate's upload and download tasks above: Apple's raises for them; here the task
    // completes with the reason.

    // MARK: Data tasks

    /// A task that gives what `url` answers to the delegate (`URLSessionDataDelegate`).
    open func dataTask(with url: URL) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url))
    }

    /// A task that gives what `request` answers to the delegate.
    open func dataTask(with request: URLRequest) -> URLSessionDataTask {
        URLSessionDataTask(session: self, request: request, inProcess: InProcessPart(body: .none, completion: nil))
    }

    /// A task that gives what `url` answers to `completionHandler`, on the delegate queue.
    open func dataTask(with url: URL, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionDataTask {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    /// A task that gives what `request` answers to `completionHandler`, on the delegate queue.
    open func dataTask(with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionDataTask {
        URLSessionDataTask(session: self, request: request, inProcess: InProcessPart(body: .none, completion: .data(completionHandler)))
    }

    // MARK: Upload tasks

    /// A task that sends `bodyData` as `request`'s body, for the delegate.
    open func uploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
        URLSessionUploadTask(session: self, request: request, inProcess: InProcessPart(body: .data(bodyData), completion: nil))
    }

    /// A task that sends `bodyData` as `request`'s body and gives the answer to `completionHandler`.
    open func uploadTask(with request: URLRequest, from bodyData: Data?,
                         completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionUploadTask {
        URLSessionUploadTask(session: self, request: request, inProcess: InProcessPart(body: bodyData.map { .data($0) } ?? .none, completion: .data(completionHandler)))
    }

    /// A task that sends `fileURL` as `request`'s body and gives the answer to `completionHandler`.
    open func uploadTask(with request: URLRequest, fromFile fileURL: URL,
                         completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionUploadTask {
        URLSessionUploadTask(session: self, request: request, inProcess: InProcessPart(body: .file(fileURL), completion: .data(completionHandler)))
    }

    // MARK: Download tasks

    /// A download of `url` whose file `completionHandler` gets, on the delegate queue; the
    /// file is removed when it returns.
    open func downloadTask(with url: URL, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    /// A download of what `request` answers whose file `completionHandler` gets.
    open func downloadTask(with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void) -> URLSessionDownloadTask {
        URLSessionDownloadTask(session: self, request: request, inProcess: InProcessPart(body: .none, completion: .download(completionHandler)))
    }

    /// A download that goes on from `resumeData`, as ``downloadTask(withResumeData:)``, whose
    /// file `completionHandler` gets; in an in-process session only.
    open func downloadTask(withResumeData resumeData: Data, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void) -> URLSessionDownloadTask {
        inProcessDownloadTask(resumingFrom: resumeData, completion: .download(completionHandler))
    }

    // MARK: async

    /// What `request` answers, once all of it has arrived.
    open func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await awaitingData(delegate) { self.dataTask(with: request, completionHandler: $0) }
    }

    /// What `url` answers, once all of it has arrived.
    open func data(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await data(for: URLRequest(url: url), delegate: delegate)
    }

    /// The answer to `request` with `bodyData` as its body.
    open func upload(for request: URLRequest, from bodyData: Data, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await awaitingData(delegate) { self.uploadTask(with: request, from: bodyData, completionHandler: $0) }
    }

    /// The answer to `request` with `fileURL` as its body.
    open func upload(for request: URLRequest, fromFile fileURL: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await awaitingData(delegate) { self.uploadTask(with: request, fromFile: fileURL, completionHandler: $0) }
    }

    /// A download of what `request` answers, in a file of its own that the caller moves or
    /// removes, as Apple's `download(for:delegate:)` leaves it.
    open func download(for request: URLRequest, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (URL, URLResponse) {
        try await awaitingDownload(delegate) { self.downloadTask(with: request, completionHandler: $0) }
    }

    /// A download that goes on from `resumeData`, as ``download(for:delegate:)``.
    open func download(resumeFrom resumeData: Data, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (URL, URLResponse) {
        try await awaitingDownload(delegate) { self.downloadTask(withResumeData: resumeData, completionHandler: $0) }
    }

    /// Runs the download `make` makes with a completion handler, and returns its file, moved
    /// to a name of its own, since the handler's goes when it returns.
    private func awaitingDownload(_ delegate: (any URLSessionTaskDelegate)?,
                                  _ make: (@escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void) -> URLSessionDownloadTask) async throws -> (URL, URLResponse) {
        let box = Locked<URLSessionTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(URL, URLResponse), any Error>) in
                let task = make { location, response, error in
                    guard let location, let response else {
                        return continuation.resume(throwing: error ?? URLError(.unknown))
                    }
                    let kept = InProcessResumeData.newFile()
                    do {
                        try FileManager.default.moveItem(at: location, to: kept)
                        continuation.resume(returning: (kept, response))
                    } catch {
                        continuation.resume(throwing: URLError(.cannotMoveFile, userInfo: [NSLocalizedDescriptionKey: "the download could not be kept: \(error)"]))
                    }
                }
                task.delegate = delegate
                box.withLock { $0 = task }
                task.resume()
            }
        } onCancel: {
            box.withLock { $0 }?.cancel()
        }
    }

    /// A download of `url`, as ``download(for:delegate:)``.
    open func download(from url: URL, delegate: (any URLSessionTaskDelegate)? = nil) async throws -> (URL, URLResponse) {
        try await download(for: URLRequest(url: url), delegate: delegate)
    }

    /// Runs the task `make` makes with a completion handler, and returns what it gives;
    /// cancelling the calling task cancels it.
    private func awaitingData(_ delegate: (any URLSessionTaskDelegate)?,
                              _ make: (@escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionTask) async throws -> (Data, URLResponse) {
        let box = Locked<URLSessionTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = make { data, response, error in
                    if let response, error == nil {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: error ?? URLError(.badServerResponse))
                    }
                }
                task.delegate = delegate
                box.withLock { $0 = task }
                task.resume()
            }
        } onCancel: {
            box.withLock { $0 }?.cancel()
        }
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
        getAllTasks { tasks in completionHandler(Self.byKind(tasks).0, Self.byKind(tasks).1, Self.byKind(tasks).2) }
    }

    /// The tasks that have not completed, by kind, as ``getTasksWithCompletionHandler(_:)`` gives them.
    open var tasks: ([URLSessionDataTask], [URLSessionUploadTask], [URLSessionDownloadTask]) {
        get async { Self.byKind(unfinishedTasks) }
    }

    /// `tasks` as data tasks (uploads apart), uploads and downloads.
    private static func byKind(_ tasks: [URLSessionTask]) -> ([URLSessionDataTask], [URLSessionUploadTask], [URLSessionDownloadTask]) {
        (tasks.compactMap { $0 is URLSessionUploadTask ? nil : $0 as? URLSessionDataTask },
         tasks.compactMap { $0 as? URLSessionUploadTask }, tasks.compactMap { $0 as? URLSessionDownloadTask })
    }

    private var unfinishedTasks: [URLSessionTask] {
        state.withLock { $0.tasks.values.filter { $0.state != .completed }.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    // MARK: Invalidating

    /// Invalidates the session once its tasks have completed and their events have been
    /// delivered; the delegate then hears `didBecomeInvalidWithError` with no error, and
    /// the session is free for another process to attach to.
    open func finishTasksAndInvalidate() {
        guard self !== Self.sharedSession else { return }
        state.withLock { $0.finishing = true }
        transport?.invalidate(cancellingTasks: false)
        invalidateIfFinished()
    }

    /// Cancels the session's tasks, then invalidates it as ``finishTasksAndInvalidate()``
    /// does, once their cancellations have been delivered.
    open func invalidateAndCancel() {
        guard self !== Self.sharedSession else { return }
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
                state.unusable = error ?? TransferErrors.unusable(.unknown, "\(identifier.isEmpty ? "the in-process session" : "session \(identifier)") was invalidated",
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
