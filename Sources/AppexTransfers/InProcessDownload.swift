import AppexLocking
import Foundation

/// The file of an in-process download task, which the session writes itself: the transport
/// gives every task's body as data. When the download ends whole, its delegate or completion
/// handler gets the file, which goes when that returns. When it fails, or is cancelled to
/// produce resume data, and may resume (a `GET` whose `200` or `206` gave an `ETag` or a
/// `Last-Modified`, with bytes written), the file stays and its error carries the resume
/// data (``InProcessResumeData``), as Apple's does. A download made from resume data goes on
/// from the file's bytes if the server answers the range with `206`, and starts over if not.
///
/// Its calls come in the order of the task's events: `begin`, `answered`, `write`, `end`.
final class InProcessDownload: Sendable {
    let task: URLSessionDownloadTask
    private let session: URLSession
    private let part: InProcessPart
    private let resuming: InProcessResumeData?
    /// Where the body goes: a new file, or the partial file of the resume data.
    let file: URL

    private struct Writing {
        var handle: FileHandle?
        var written: Int64 = 0
        /// Why the file could not be made or written, if it couldn't.
        var failure: (any Error)?
        /// What the server gave to check that the bytes are still its file, if the download may resume.
        var validator: String?
        /// Who gets the resume data when the task ends, if it was cancelled to produce it.
        var wantsResumeData: (@Sendable (Data?) -> Void)?
        var ended = false
    }

    private let writing = Locked(Writing())

    init(session: URLSession, task: URLSessionDownloadTask, part: InProcessPart, resuming: InProcessResumeData? = nil) {
        self.session = session
        self.task = task
        self.part = part
        self.resuming = resuming
        file = resuming?.file ?? InProcessResumeData.newFile()
    }

    /// Makes the file, or opens the partial file to go on from; why it can't, if it can't.
    /// A download that a data task became (`dataTask`) takes the data task's place, and its
    /// delegate hears of it; the data task ends unheard, as Apple's.
    @discardableResult
    func begin(becoming dataTask: URLSessionDataTask? = nil) -> (any Error)? {
        let failure = writing.withLock { writing -> (any Error)? in
            do {
                if let resuming {
                    writing.handle = try resuming.openPartialFile()
                    writing.written = resuming.bytesReceived
                    // Until the server answers, the bytes may resume as they could before.
                    writing.validator = resuming.validator
                } else {
                    guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
                    }
                    writing.handle = try FileHandle(forWritingTo: file)
                }
            } catch {
                writing.failure = error
                // A new file that could be made but not opened goes; a partial file stays.
                if resuming == nil { try? FileManager.default.removeItem(at: file) }
            }
            return writing.failure
        }
        guard let dataTask else { return failure }
        dataTask.status.withLock { $0.state = .completed }
        session.state.withLock { state in
            state.tasks[dataTask.taskIdentifier] = nil
            state.tasks[task.taskIdentifier] = task
        }
        session.tell(dataTask, (any URLSessionDataDelegate).self) { [session, dataTask, task] delegate in
            delegate.urlSession(session, dataTask: dataTask, didBecome: task)
        }
        if let response = dataTask.response { answered(response) }
        return failure
    }

    /// The server answered: the file goes on from the bytes it has if this answers their
    /// range, and starts over if not; the download may resume later if the answer says how
    /// to check the bytes. A download made from resume data tells its delegate where it went
    /// on from.
    func answered(_ response: URLResponse) {
        let http = response as? HTTPURLResponse
        let method = task.currentRequest?.httpMethod ?? "GET"
        let resumable = method == "GET" && [200, 206].contains(http?.statusCode ?? 0)
        let validator = resumable ? http?.value(forHTTPHeaderField: "ETag") ?? http?.value(forHTTPHeaderField: "Last-Modified") : nil
        let offset = writing.withLock { writing -> Int64 in
            writing.validator = validator
            if let resuming, http?.statusCode == 206, Self.rangeStart(of: http) == resuming.bytesReceived { return writing.written }
            if writing.written > 0, let handle = writing.handle {
                do { try handle.truncate(atOffset: 0) } catch { writing.failure = error }
            }
            writing.written = 0
            return 0
        }
        let expected = response.expectedContentLength >= 0 ? offset + response.expectedContentLength : NSURLSessionTransferSizeUnknown
        task.status.withLock { status in
            status.countOfBytesReceived = offset
            status.countOfBytesExpectedToReceive = expected
        }
        task.reportProgress()
        guard resuming != nil else { return }
        session.tell(task, (any URLSessionDownloadDelegate).self) { [session, task] delegate in
            delegate.urlSession(session, downloadTask: task, didResumeAtOffset: offset, expectedTotalBytes: expected)
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
        guard part.completion == nil else { return }
        session.tell(task, (any URLSessionDownloadDelegate).self) { [session, task] delegate in
            delegate.urlSession(session, downloadTask: task, didWriteData: Int64(data.count), totalBytesWritten: total, totalBytesExpectedToWrite: expected)
        }
    }

    /// Has `handler` get the resume data when the task ends, which it is about to, cancelled:
    /// nil if it can't resume, or if it has ended already.
    func produceResumeData(_ handler: @escaping @Sendable (Data?) -> Void) {
        let ended = writing.withLock { writing in
            if !writing.ended { writing.wantsResumeData = handler }
            return writing.ended
        }
        if ended { handler(nil) }
    }

    /// The transport ended the task: the delegate or completion handler gets the file if it
    /// is whole, then hears the end; the end of one that may resume carries its resume data.
    func end(_ error: (any Error)?) {
        let (outcome, resumeData, wants) = writing.withLock { writing -> ((any Error)?, Data?, (@Sendable (Data?) -> Void)?) in
            try? writing.handle?.close()
            writing.handle = nil
            writing.ended = true
            let wants = writing.wantsResumeData
            writing.wantsResumeData = nil
            guard let error else { return (writing.failure, nil, wants) }
            let cancelledOnly = (error as? URLError)?.code == .cancelled && wants == nil
            guard writing.failure == nil, !cancelledOnly, writing.written > 0, let validator = writing.validator,
                  let url = task.currentRequest?.url else { return (error, nil, wants) }
            let resumeData = InProcessResumeData(url: url, file: file, bytesReceived: writing.written, validator: validator).data
            return (Self.error(error, carrying: resumeData), resumeData, wants)
        }
        wants?(resumeData)
        session.delegateQueue.addOperation { [session, task, file, part] in
            var handedOver = false
            if outcome == nil {
                if case .download(let handler) = part.completion {
                    handler(file, task.response, nil)
                    handedOver = true
                } else if let delegate = session.delegate(of: task, (any URLSessionDownloadDelegate).self) {
                    delegate.urlSession(session, downloadTask: task, didFinishDownloadingTo: file)
                    handedOver = true
                }
            }
            if resumeData == nil { try? FileManager.default.removeItem(at: file) }
            task.status.withLock { $0.downloadHandedOver = handedOver }
            session.finishInProcess(task, part, outcome)
        }
    }

    /// `error` with `resumeData` in its `userInfo`, under `NSURLSessionDownloadTaskResumeData`.
    private static func error(_ error: any Error, carrying resumeData: Data) -> any Error {
        let userInfo = (error as NSError).userInfo.merging([NSURLSessionDownloadTaskResumeData: resumeData]) { $1 }
        return URLError((error as? URLError)?.code ?? .unknown, userInfo: userInfo)
    }

    /// Where a `206`'s `Content-Range` (`bytes START-END/TOTAL`) starts.
    private static func rangeStart(of response: HTTPURLResponse?) -> Int64? {
        guard let range = response?.value(forHTTPHeaderField: "Content-Range"), range.hasPrefix("bytes ") else { return nil }
        return Int64(range.dropFirst("bytes ".count).prefix { $0 != "-" })
    }
}
