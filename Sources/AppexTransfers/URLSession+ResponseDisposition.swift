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
            let writer = InProcessDownload(session: self, task: download, part: part)
            part.download = writer
            gate.becomeDownload(writer, from: dataTask)
        }
    }
}
