import AppexApplication
import AppexIPC
import AppexLocking
import AppexSystem
import AppexTransfers
import AppexWire
import Foundation
import Glibc

/// The background-session commands' delegate: prints each event as a line, and lets the
/// command wait for the moment it waits for. A download's file is copied to
/// `HELPER_KEEP_DOWNLOAD`, and a failed download's resume data written to `HELPER_RESUME_DATA`,
/// where they are set. With `HELPER_PRINT_ANSWER` set, an upload's answer body and header
/// fields are printed too.
final class PrintingDelegate: URLSessionDownloadDelegate, URLSessionDataDelegate {
    private let printsAnswers = ProcessInfo.processInfo.environment["HELPER_PRINT_ANSWER"] != nil
    private let moments = Locked<Set<String>>([])
    private let changed = DispatchSemaphore(value: 0)

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        if let error {
            say("refused \(Self.describe(error))")
            exit(1)
        }
        reached("invalidated")
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        say("finished events")
        reached("finished events")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        say("progress \(task.taskIdentifier) sent \(bytesSent), \(totalBytesSent) of \(totalBytesExpectedToSend)")
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        say("progress \(downloadTask.taskIdentifier) wrote \(bytesWritten), \(totalBytesWritten) of \(totalBytesExpectedToWrite)")
        reached("wrote")
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard printsAnswers else { return }
        let text = data.count <= 256 ? String(decoding: data, as: UTF8.self) : "\(data.count) bytes"
        say("event receivedData \(dataTask.taskIdentifier) \(dataTask is URLSessionUploadTask ? "upload" : "data") \(text)")
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        say("resumed \(downloadTask.taskIdentifier) at \(fileOffset) of \(expectedTotalBytes)")
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
        let bytes = (try? Data(contentsOf: location).count) ?? -1
        if let keep = ProcessInfo.processInfo.environment["HELPER_KEEP_DOWNLOAD"] {
            try? FileManager.default.copyItem(at: location, to: URL(fileURLWithPath: keep))
        }
        say("event finishedDownloading \(downloadTask.taskIdentifier) status \(status) at \(location.path) holding \(bytes) bytes")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard task.taskIdentifier > 0 else {
            say("refused \(error.map(Self.describe) ?? "without a reason")")
            exit(1)
        }
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        let outcome = switch error {
        case nil: "completed"
        case let error as URLError where error.code == .cancelled: "cancelled"
        case let error?: "failed \((error as NSError).code)"
        }
        let resumeData = (error as? URLError)?.downloadTaskResumeData
        if let resumeData, let path = ProcessInfo.processInfo.environment["HELPER_RESUME_DATA"] {
            try? resumeData.write(to: URL(fileURLWithPath: path))
        }
        say("event completed \(task.taskIdentifier) \(outcome) \(status)" + (resumeData == nil ? "" : " resumable"))
        if printsAnswers, let response = task.response as? HTTPURLResponse {
            say("answer \(response.value(forHTTPHeaderField: "location") ?? "-") \(response.mimeType ?? "-") \(response.textEncodingName ?? "-")")
        }
        reached("completed")
    }

    /// Waits until `moment` has come, for at most `seconds`; false if it did not.
    func wait(for moment: String, seconds: Double = 60) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while !moments.withLock({ $0.contains(moment) }) {
            guard changed.wait(timeout: deadline) == .success else { return false }
        }
        return true
    }

    private func reached(_ moment: String) {
        moments.withLock { _ = $0.insert(moment) }
        changed.signal()
    }

    static func describe(_ error: any Error) -> String {
        let error = error as NSError
        return "\(error.domain) \(error.code): \(error.localizedDescription)"
    }
}

/// The session `identifier`, in `group`, with a printing delegate; `HELPER_NO_LAUNCH_EVENTS`
/// set turns `sessionSendsLaunchEvents` off.
func backgroundSession(_ identifier: String, _ group: String) -> (URLSession, PrintingDelegate) {
    let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
    configuration.sharedContainerIdentifier = group
    if ProcessInfo.processInfo.environment["HELPER_NO_LAUNCH_EVENTS"] != nil { configuration.sessionSendsLaunchEvents = false }
    let delegate = PrintingDelegate()
    return (URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil), delegate)
}

/// Lets the session's queued deliveries run, then invalidates it once its tasks are done
/// and waits for that; exits 1 if it does not come.
func finish(_ session: URLSession, _ delegate: PrintingDelegate) {
    session.finishTasksAndInvalidate()
    guard delegate.wait(for: "invalidated") else {
        say("the session was not invalidated within 60 s")
        exit(1)
    }
}

/// `transfer-attach SESSION GROUP`: attaches, prints "attached" (or "refused …" and exits
/// 1), and stays attached until its standard input closes.
func transferAttach(_ identifier: String, _ group: String) {
    let (session, _) = backgroundSession(identifier, group)
    let attached = DispatchSemaphore(value: 0)
    // Queued after a refusal's delivery, which exits first.
    session.getAllTasks { _ in attached.signal() }
    attached.wait()
    say("attached")
    _ = FileHandle.standardInput.readDataToEndOfFile()
}

/// `transfer-upload SESSION GROUP URL FILE [wait|cancel]` and `transfer-download SESSION GROUP
/// URL [wait|cancel]`: makes the task (a PUT of FILE, or a download of URL) with the
/// background session API, prints "created N" or "refused …", and exits at once: the task
/// goes on without it. With `wait`, it prints the task's progress and events until it
/// completes; with `cancel`, it cancels the task first. `HELPER_HEADER`, "NAME:VALUE" with
/// each side percent-encoded (so that it can hold CR, LF and NUL), adds a header field;
/// `HELPER_BEGIN_AFTER`, in seconds, sets the task's `earliestBeginDate` that far ahead.
func transferTask(_ kind: String, _ identifier: String, _ group: String, _ url: String, file: String?, then next: String?) {
    let (session, delegate) = backgroundSession(identifier, group)
    guard let target = URL(string: url) else {
        say("refused: \(url) is no URL")
        exit(1)
    }
    var request = URLRequest(url: target)
    request.httpMethod = kind == "upload" ? "PUT" : "GET"
    if let field = ProcessInfo.processInfo.environment["HELPER_HEADER"] {
        let sides = field.split(separator: ":", maxSplits: 1).map { $0.removingPercentEncoding ?? String($0) }
        request.setValue(sides.count == 2 ? sides[1] : "", forHTTPHeaderField: sides[0])
    }
    let task: URLSessionTask = file.map { session.uploadTask(with: request, fromFile: URL(fileURLWithPath: $0)) }
        ?? session.downloadTask(with: request)
    if let seconds = ProcessInfo.processInfo.environment["HELPER_BEGIN_AFTER"].flatMap(Double.init) {
        task.earliestBeginDate = Date().addingTimeInterval(seconds)
    }
    task.resume()
    guard task.taskIdentifier > 0 else {
        _ = delegate.wait(for: "completed") // the refusal exits
        exit(1)
    }
    say("created \(task.taskIdentifier)")
    if next == "cancel" { task.cancel() }
    if next == "cancel-resumable", let download = task as? URLSessionDownloadTask {
        guard delegate.wait(for: "wrote") else {
            say("no bytes within 60 s")
            exit(1)
        }
        let given = DispatchSemaphore(value: 0)
        download.cancel { resumeData in
            say(resumeData == nil ? "no resume data" : "resume data")
            if let resumeData, let path = ProcessInfo.processInfo.environment["HELPER_RESUME_DATA"] {
                try? resumeData.write(to: URL(fileURLWithPath: path))
            }
            given.signal()
        }
        given.wait()
    }
    if next == "wait" || next?.hasPrefix("cancel") == true {
        guard delegate.wait(for: "completed") else {
            say("no completion within 60 s")
            exit(1)
        }
        finish(session, delegate)
    }
}

/// `transfer-resume SESSION GROUP FILE`: makes a download from the resume data in FILE with
/// `downloadTask(withResumeData:)`, prints "created N" (or the refusal), and its progress and
/// events until it completes.
func transferResume(_ identifier: String, _ group: String, _ file: String) {
    let (session, delegate) = backgroundSession(identifier, group)
    let task = session.downloadTask(withResumeData: (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data())
    task.resume()
    guard task.taskIdentifier > 0 else {
        _ = delegate.wait(for: "completed") // the refusal exits
        exit(1)
    }
    say("created \(task.taskIdentifier)")
    guard delegate.wait(for: "completed") else {
        say("no completion within 60 s")
        exit(1)
    }
    finish(session, delegate)
}

/// `transfer-data SESSION GROUP URL`: asks the background session for a data task with a
/// completion handler, which Apple's raises for; prints "refused DOMAIN CODE: …".
func transferData(_ identifier: String, _ group: String, _ url: String) {
    let (session, _) = backgroundSession(identifier, group)
    guard let target = URL(string: url) else { exit(64) }
    let done = DispatchSemaphore(value: 0)
    session.dataTask(with: target) { _, _, error in
        say(error.map { "refused \(PrintingDelegate.describe($0))" } ?? "got an answer")
        done.signal()
    }.resume()
    done.wait()
}

/// `in-process-get URL`: gets URL with `URLSession.shared`, as Apple's code does, in a program
/// that doesn't link AppexNetworking; prints "got N bytes", or "refused DOMAIN CODE: …" and
/// the recovery suggestion.
func inProcessGet(_ url: String) {
    guard let target = URL(string: url) else { exit(64) }
    let done = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: target) { data, _, error in
        if let error {
            say("refused \(PrintingDelegate.describe(error))")
            say((error as NSError).localizedRecoverySuggestion ?? "")
        } else {
            say("got \(data?.count ?? 0) bytes")
        }
        done.signal()
    }.resume()
    done.wait()
}

/// `transfer-tasks SESSION GROUP`: attaches, prints "tasks" and each unfinished task as
/// " KIND N PATH" (upload or download, its identifier and its URL's path), and exits,
/// leaving them be. It lists them with Apple's older `getTasksWithCompletionHandler(_:)`.
func transferTasks(_ identifier: String, _ group: String) {
    let (session, _) = backgroundSession(identifier, group)
    let listed = DispatchSemaphore(value: 0)
    session.getTasksWithCompletionHandler { data, uploads, downloads in
        let described = uploads.map { ("upload", $0 as URLSessionTask) } + downloads.map { ("download", $0 as URLSessionTask) }
        say("tasks" + (data.isEmpty ? "" : " data?") + described.sorted { $0.1.taskIdentifier < $1.1.taskIdentifier }
            .map { " \($0.0) \($0.1.taskIdentifier) \($0.1.originalRequest?.url?.path ?? "")" }.joined())
        listed.signal()
    }
    listed.wait()
}

/// `transfer-raw-create SESSION GROUP KIND URL FILES`: attaches on a connection of its own
/// and sends a `TransferCreate` past the session API, with FILES descriptors of its own
/// executable, which the API would never send for a download, nor more than one for an
/// upload; prints "created N" or "refused DOMAIN CODE: …", and exits.
func transferRawCreate(_ identifier: String, _ group: String, _ kind: String, _ url: String, files: Int) {
    do throws(ErrorInfo) {
        let link = try DaemonLink.open()
        _ = try link.call(needing: WireVersion.transfers) { .transferAttach(TransferAttach(call: $0, sessionIdentifier: identifier, groupIdentifier: group)) }
        var descriptors: [FileDescriptor] = []
        for _ in 0..<files {
            guard let file = try? FileDescriptor.open("/proc/self/exe", flags: O_RDONLY | O_CLOEXEC) else { exit(70) }
            descriptors.append(file)
        }
        let answer = try link.call(needing: WireVersion.transfers, { call in
            .transferCreate(TransferCreate(call: call, sessionIdentifier: identifier, kind: kind, url: url, method: kind == "upload" ? "PUT" : "GET"))
        }, descriptors: descriptors)
        guard case .transferTaskResult(let result) = answer else { exit(70) }
        say("created \(result.task.taskIdentifier)")
    } catch {
        say("refused \(error.domain) \(error.code): \(error.message)")
    }
}

/// `transfer-events SESSION GROUP`: attaches and prints the events that waited for the
/// session, then "finished events", and detaches once they are acknowledged.
func transferEvents(_ identifier: String, _ group: String) {
    let (session, delegate) = backgroundSession(identifier, group)
    guard delegate.wait(for: "finished events") else {
        say("no events within 60 s")
        exit(1)
    }
    finish(session, delegate)
}

/// Launched by appexd for a background session's events (`APPEX_BACKGROUND_URL_SESSION`):
/// with `HELPER_WAKE_LOG` and `HELPER_GROUP` set (the test puts them in appexd's
/// environment, which the app inherits), it prints "woken for SESSION" and the events to that
/// log, and calls the completion handler once they are delivered, which ends it. Without
/// them it leaves the events waiting. Returns false if the app was not launched for events.
func answerWakeForEvents() -> Bool {
    UIApplication.shared.handleEventsForBackgroundURLSession { identifier, completionHandler in
        let environment = ProcessInfo.processInfo.environment
        guard let log = environment["HELPER_WAKE_LOG"], let group = environment["HELPER_GROUP"] else { exit(0) }
        let file = open(log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard file >= 0, dup2(file, STDOUT_FILENO) >= 0, dup2(file, STDERR_FILENO) >= 0 else { exit(2) }
        say("woken for \(identifier)")
        let (_, delegate) = backgroundSession(identifier, group)
        guard delegate.wait(for: "finished events") else {
            say("no events within 60 s")
            exit(1)
        }
        completionHandler()
    }
}
