import AppexIPC
import AppexLocking
import AppexWire
import Foundation
import Synchronization

/// How a session attaches to appexd's session and takes in what appexd tells it: task
/// updates and events, held while they name a task not known yet, then delivered in order.
extension URLSession {
    /// Attaches this process to the session, and learns its tasks; a refusal invalidates it.
    func attach() {
        guard let link, state.withLock({ $0.unusable == nil }) else {
            invalidate(state.withLock { $0.unusable })
            return
        }
        setListener(link.listen { [self] news in hear(news) })
        let attach = TransferAttach(call: 0, sessionIdentifier: identifier, groupIdentifier: configuration.sharedContainerIdentifier ?? "")
        do throws(ErrorInfo) {
            let answer = try link.call(needing: WireVersion.transfers) { call in
                var message = attach
                message.call = call
                return .transferAttach(message)
            }
            guard case .transferSession(let session) = answer else {
                throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 2, message: "appexd answered \(answer.name) to TransferAttach")
            }
            state.withLock { state in
                for info in session.tasks {
                    let task = makeTask(info)
                    if info.hasEnded { task.complete(info) }
                    state.tasks[task.taskIdentifier] = task
                }
                deliverHeld(&state, forcing: true)
            }
        } catch {
            invalidate(TransferErrors.error(error))
        }
    }

    /// What the link says: a message about this session, or that the link ended.
    private func hear(_ news: DaemonLink.News) {
        switch news {
        case .ended(let reason):
            invalidate(TransferErrors.error(DaemonConnector.unreachable(
                "background session \(identifier) lost appexd: \(reason)", "Make the session again; appexd goes on with its tasks.")))
        case .message(let message):
            guard Self.session(of: message) == identifier else { return }
            state.withLock { state in
                state.held.append(message)
                deliverHeld(&state, forcing: false)
            }
        }
    }

    /// Delivers the held messages, in order, up to the first that names a task not known
    /// yet; `forcing` makes such tasks from what the message says, so nothing stays held.
    func deliverHeld(_ state: inout State, forcing: Bool) {
        while let message = state.held.first {
            let unknown = Self.tasks(in: message).filter { state.tasks[Int(clamping: $0.taskIdentifier)] == nil }
            if !unknown.isEmpty {
                guard forcing else { return }
                for info in unknown { state.tasks[Int(clamping: info.taskIdentifier)] = makeTask(info) }
            }
            state.held.removeFirst()
            deliver(message, &state)
        }
    }

    private func deliver(_ message: WireMessage, _ state: inout State) {
        switch message {
        case .transferUpdate(let update):
            guard let task = state.tasks[Int(clamping: update.task.taskIdentifier)], task.state != .completed else { return }
            report(progressOf: task, update.task)
        case .transferEvents(let batch):
            let fresh = batch.events.filter { $0.sequence > state.lastDelivered }
            if let last = fresh.last?.sequence {
                state.lastDelivered = last
                for event in fresh {
                    guard let task = state.tasks[Int(clamping: event.task.taskIdentifier)] else { continue }
                    deliver(event, of: task)
                }
                // Once the delegate has had them: appexd may forget them, and remove a download's file.
                delegateQueue.addOperation { [self] in
                    try? link?.send(.transferAcknowledge(TransferAcknowledge(sessionIdentifier: identifier, sequence: last)))
                }
            }
            // After the events that waited; or with none, if appexd launched the app for this
            // session (another process took them first), so its handler is not left waiting.
            if batch.backlog, !fresh.isEmpty || launchedForThisSession {
                tell((any URLSessionDelegate).self) { [self] delegate in delegate.urlSessionDidFinishEvents(forBackgroundURLSession: self) }
            }
        default:
            break
        }
    }

    private func report(progressOf task: URLSessionTask, _ info: TransferTaskInfo) {
        if let download = task as? URLSessionDownloadTask, let offset = download.resumed(info) {
            tell((any URLSessionDownloadDelegate).self) { [self] delegate in
                delegate.urlSession(self, downloadTask: download, didResumeAtOffset: offset, expectedTotalBytes: info.bytesExpectedToReceive)
            }
        }
        let (sent, received) = task.apply(info)
        if sent > 0 {
            tell((any URLSessionTaskDelegate).self) { [self] delegate in
                delegate.urlSession(self, task: task, didSendBodyData: sent, totalBytesSent: info.bytesSent,
                                    totalBytesExpectedToSend: info.bytesExpectedToSend)
            }
        }
        if received > 0, let download = task as? URLSessionDownloadTask {
            tell((any URLSessionDownloadDelegate).self) { [self] delegate in
                delegate.urlSession(self, downloadTask: download, didWriteData: received, totalBytesWritten: info.bytesReceived,
                                    totalBytesExpectedToWrite: info.bytesExpectedToReceive)
            }
        }
    }

    private func deliver(_ event: TransferEventInfo, of task: URLSessionTask) {
        switch event.kind {
        case "finishedDownloading":
            guard let download = task as? URLSessionDownloadTask, !event.location.isEmpty else { return }
            let location = URL(fileURLWithPath: event.location)
            download.answered(event.task)
            tell((any URLSessionDownloadDelegate).self) { [self] delegate in
                delegate.urlSession(self, downloadTask: download, didFinishDownloadingTo: location)
            }
        case "receivedData":
            guard let dataTask = task as? URLSessionDataTask, !event.data.isEmpty else { return }
            dataTask.answered(event.task)
            tell((any URLSessionDataDelegate).self) { [self] delegate in
                delegate.urlSession(self, dataTask: dataTask, didReceive: event.data)
            }
        case "completed":
            report(progressOf: task, event.task)
            delegateQueue.addOperation { [self] in
                task.complete(event.task)
                if let delegate = state.withLock({ $0.delegate }) as? any URLSessionTaskDelegate {
                    delegate.urlSession(self, task: task, didCompleteWithError: task.error)
                }
                invalidateIfFinished()
            }
        default:
            break
        }
    }

    /// Whether appexd launched this process for this session's events.
    private var launchedForThisSession: Bool {
        ProcessInfo.processInfo.environment["APPEX_BACKGROUND_URL_SESSION"] == identifier
    }

    /// A task object for a task appexd told of: one this process did not make.
    func makeTask(_ info: TransferTaskInfo) -> URLSessionTask {
        var request = URL(string: info.url).map { URLRequest(url: $0) }
        request?.httpMethod = info.method
        let task: URLSessionTask = info.kind == "upload"
            ? URLSessionUploadTask(session: self, request: request)
            : URLSessionDownloadTask(session: self, request: request)
        _ = task.apply(info)
        return task
    }

    private static func session(of message: WireMessage) -> String? {
        switch message {
        case .transferUpdate(let update): update.sessionIdentifier
        case .transferEvents(let events): events.sessionIdentifier
        default: nil
        }
    }

    private static func tasks(in message: WireMessage) -> [TransferTaskInfo] {
        switch message {
        case .transferUpdate(let update): [update.task]
        case .transferEvents(let events): events.events.map(\.task)
        default: []
        }
    }
}

extension TransferTaskInfo {
    /// Whether appexd reports the task ended: completed, failed or cancelled.
    var hasEnded: Bool { ["completed", "failed", "cancelled"].contains(state) }
}
