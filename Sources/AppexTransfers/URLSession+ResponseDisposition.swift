import AppexLocking
import Foundation

/// What an in-process data task does with its answer once its delegate has decided
/// (`urlSession(_:dataTask:didReceive:completionHandler:)`).
extension URLSession {
    func decide(_ disposition: ResponseDisposition, _ dataTask: URLSessionDataTask, _ part: InProcessPart, _ gate: AnswerGate) {
        switch disposition {
        case .allow:
            gate.allow()
        case .cancel:
            if gate.refuse(URLError(.cancelled, userInfo: [NSLocalizedDescriptionKey: "the delegate cancelled the task on its answer"])) {
                part.task?.cancel()
            }
        case .becomeStream:
            let unsupported = URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "the delegate asked the data task to become a stream task, and Appex has no stream tasks",
                NSLocalizedRecoverySuggestionErrorKey: "Answer .allow and read the body as data, or .becomeDownload to have it in a file.",
            ])
            if gate.refuse(unsupported) { part.task?.cancel() }
        case .becomeDownload:
            let download = URLSessionDownloadTask(session: self, request: dataTask.currentRequest, inProcess: part)
            download.delegate = dataTask.delegate
            download.status.withLock { status in
                status.state = .running
                status.response = dataTask.response
                status.countOfBytesExpectedToReceive = dataTask.countOfBytesExpectedToReceive
            }
            gate.becomeDownload(InProcessDownload(session: self, dataTask: dataTask, task: download, part: part))
        }
    }
}

/// The download task an in-process data task became (`.becomeDownload`): the rest of the
/// answer's body goes to a file, as a download's does, and the download delegate hears of
/// it. Its calls come under its ``AnswerGate``'s lock, one at a time.
final class InProcessDownload: Sendable {
    let task: URLSessionDownloadTask
    private let dataTask: URLSessionDataTask
    private let session: URLSession
    private let part: InProcessPart
    /// Where the body goes, in the process's temporary folder, as Apple's downloads go to theirs.
    private let file = FileManager.default.temporaryDirectory.appendingPathComponent("CFNetworkDownload_\(UUID().uuidString).tmp")
    private let writing = Locked<(handle: FileHandle?, written: Int64, failure: (any Error)?)>((nil, 0, nil))

    init(session: URLSession, dataTask: URLSessionDataTask, task: URLSessionDownloadTask, part: InProcessPart) {
        self.session = session
        self.dataTask = dataTask
        self.task = task
        self.part = part
    }

    /// Makes the file, and tells the delegate of the new task; the data task ends unheard,
    /// as Apple's.
    func begin() {
        writing.withLock { writing in
            do {
                guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
                }
                writing.handle = try FileHandle(forWritingTo: file)
            } catch {
                writing.failure = error
            }
        }
        dataTask.status.withLock { $0.state = .completed }
        session.state.withLock { state in
            state.tasks[dataTask.taskIdentifier] = nil
            state.tasks[task.taskIdentifier] = task
        }
        session.tell(dataTask, (any URLSessionDataDelegate).self) { [session, dataTask, task] delegate in
            delegate.urlSession(session, dataTask: dataTask, didBecome: task)
        }
    }

    /// Writes `data` to the file, and tells the delegate how far the download is.
    func write(_ data: Data) {
        let total = writing.withLock { writing -> Int64? in
            guard let handle = writing.handle, writing.failure == nil else { return nil }
            do {
                try handle.write(contentsOf: data)
                writing.written += Int64(data.count)
                return writing.written
            } catch {
                writing.failure = error
                return nil
            }
        }
        guard let total else { return }
        let expected = task.status.withLock { status in
            status.countOfBytesReceived = total
            return status.countOfBytesExpectedToReceive
        }
        task.reportProgress()
        session.tell(task, (any URLSessionDownloadDelegate).self) { [session, task] delegate in
            delegate.urlSession(session, downloadTask: task, didWriteData: Int64(data.count), totalBytesWritten: total, totalBytesExpectedToWrite: expected)
        }
    }

    /// The transport ended the task: the delegate gets the file if it is whole, then hears
    /// the end, with why the file couldn't be written if it couldn't.
    func end(_ error: (any Error)?) {
        let failure = writing.withLock { writing -> (any Error)? in
            try? writing.handle?.close()
            writing.handle = nil
            return writing.failure
        }
        let outcome = error ?? failure
        session.delegateQueue.addOperation { [session, task, file, part] in
            if outcome == nil, let delegate = session.delegate(of: task, (any URLSessionDownloadDelegate).self) {
                delegate.urlSession(session, downloadTask: task, didFinishDownloadingTo: file)
            }
            try? FileManager.default.removeItem(at: file)
            task.status.withLock { $0.downloadHandedOver = outcome == nil }
            session.finishInProcess(task, part, outcome)
        }
    }
}
