import AppexIPC
import AppexLocking
import AppexSystem
import AppexWire
import Foundation
import Glibc
import Synchronization

/// How a session hands its tasks to appexd, and cancels them.
extension URLSession {
    /// Makes `task` in appexd, which numbers it and performs it; a task that can't be made
    /// completes with the reason.
    func start(_ task: URLSessionTask) {
        let starts = task.status.withLock { status -> Bool in
            guard status.state == .suspended else { return false }
            status.state = .running
            return true
        }
        guard starts else { return }
        if let part = task.inProcess { return startInProcess(task, part) }
        guard configuration.identifier != nil else {
            return fail(task, TransferErrors.unusable(.unsupportedURL, "an in-process session doesn't resume a download from resume data yet",
                                                      recovery: "Resume downloads in a background session."))
        }
        if let unusable = state.withLock({ $0.unusable }) { return fail(task, unusable) }
        guard let link, let request = task.originalRequest, let url = request.url else {
            if task is URLSessionDownloadTask, task.originalRequest == nil {
                return fail(task, TransferErrors.unusable(.cannotDecodeRawData, "the resume data is damaged: it is not what a download's cancellation or failure gave",
                                                          recovery: "Pass the resume data unchanged, or download the file again."))
            }
            return fail(task, TransferErrors.unusable(.badURL, "the task has no URL", recovery: "Make the task with a request that has one."))
        }
        var body: FileDescriptor?
        if let file = task.file {
            do throws(SystemError) {
                body = try Self.openForUpload(file)
            } catch {
                return fail(task, TransferErrors.unusable(.fileDoesNotExist, "the upload's file can't be read: \(error)",
                                                          recovery: "Upload a file this process can read."))
            }
        }
        defer { body?.close() }
        let create = TransferCreate(call: 0, sessionIdentifier: identifier, kind: task is URLSessionUploadTask ? "upload" : "download",
                                    url: url.absoluteString, method: request.httpMethod ?? "GET", headers: headers(of: request),
                                    timeoutMilliseconds: Self.milliseconds(min(request.timeoutInterval, configuration.timeoutIntervalForRequest)),
                                    resourceTimeoutMilliseconds: Self.milliseconds(configuration.timeoutIntervalForResource),
                                    sendsNoLaunchEvents: !configuration.sessionSendsLaunchEvents, resumesTask: task.resumeData?.task ?? "",
                                    earliestBeginMilliseconds: task.earliestBeginDate.map { UInt64(max(0, $0.timeIntervalSince1970 * 1000)) } ?? 0)
        do throws(ErrorInfo) {
            let answer = try link.call(needing: WireVersion.transfers, { call in
                var message = create
                message.call = call
                return .transferCreate(message)
            }, descriptors: body.map { [$0] } ?? [])
            guard case .transferTaskResult(let result) = answer else {
                throw ErrorInfo(domain: AppexErrorDomain.runtime, code: 2, message: "appexd answered \(answer.name) to TransferCreate")
            }
            _ = task.apply(result.task)
            state.withLock { state in
                state.tasks[task.taskIdentifier] = task
                deliverHeld(&state, forcing: false)
            }
        } catch {
            fail(task, TransferErrors.error(error))
            // Whatever was held for a task appexd made but did not number here goes out now.
            state.withLock { deliverHeld(&$0, forcing: true) }
        }
    }

    /// Asks appexd to cancel `task`; its cancellation arrives as its completion. A task
    /// not resumed yet completes at once. With `resumeData`, a download that may resume
    /// keeps its bytes, and `resumeData` gets the data to resume it from (nil otherwise).
    func cancel(_ task: URLSessionTask, producingResumeData resumeData: (@Sendable (Data?) -> Void)? = nil) {
        let was = task.status.withLock { status -> URLSessionTask.State in
            defer { if status.state == .running { status.state = .canceling } }
            return status.state
        }
        if let running = task.inProcess?.task {
            // The transport reports the cancellation as the task's end, which carries the
            // resume data of a download that may resume.
            let download = was == .completed ? nil : task.inProcess?.download
            if let resumeData {
                if let download, task is URLSessionDownloadTask { download.produceResumeData(resumeData) } else { resumeData(nil) }
            }
            if was != .completed { running.cancel() }
            return
        }
        switch was {
        case .suspended:
            fail(task, URLError(.cancelled, userInfo: [NSLocalizedDescriptionKey: "the task was cancelled before it was resumed"]))
            resumeData?(nil)
        case .running:
            let cancel = TransferCancel(call: 0, sessionIdentifier: identifier, taskIdentifier: UInt64(task.taskIdentifier),
                                        producesResumeData: resumeData != nil)
            // Not on the caller's thread: Apple's cancel returns at once, and it may be called
            // from a delegate method, on the queue that delivers the cancellation.
            DispatchQueue.global().async { [link] in
                let answer = try? link?.call(needing: WireVersion.transfers) { call in
                    var message = cancel
                    message.call = call
                    return .transferCancel(message)
                }
                guard let resumeData else { return }
                guard case .transferTaskResult(let result) = answer else { return resumeData(nil) }
                resumeData(TransferResumeData(result.task)?.data)
            }
        case .canceling, .completed:
            resumeData?(nil)
        }
    }

    /// Completes `task`, which was never made, with `error`: through its completion handler
    /// if it has one, else its delegate.
    func fail(_ task: URLSessionTask, _ error: any Error) {
        delegateQueue.addOperation { [self] in
            task.complete(error: error)
            switch task.inProcess?.completion {
            case .data(let handler):
                handler(nil, nil, error)
            case .download(let handler):
                handler(nil, nil, error)
            case nil:
                if let delegate = task.delegate ?? (state.withLock({ $0.delegate }) as? any URLSessionTaskDelegate) {
                    delegate.urlSession(self, task: task, didCompleteWithError: error)
                }
            }
            invalidateIfFinished()
        }
    }

    /// Opens an upload's file for reading. A file an item provider handed over in place is a
    /// link to one of this process's descriptors (`/proc/self/fd/N`), which a sandboxed
    /// extension may not open again by path: a duplicate of that descriptor goes instead, so
    /// the host's file reaches appexd without a copy.
    static func openForUpload(_ file: URL) throws(SystemError) -> FileDescriptor {
        let prefix = "/proc/self/fd/"
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: file.path), target.hasPrefix(prefix),
           let number = Int32(target.dropFirst(prefix.count)) {
            let copy = fcntl(number, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else { throw SystemError("fcntl(F_DUPFD_CLOEXEC)", subject: target) }
            return FileDescriptor(owning: copy)
        }
        return try FileDescriptor.open(file.path)
    }

    /// The request's header fields, then the configuration's that the request does not set.
    private func headers(of request: URLRequest) -> [TransferHeader] {
        let own = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }
        let added = (configuration.httpAdditionalHeaders ?? [:]).sorted { $0.key < $1.key }.filter { request.value(forHTTPHeaderField: $0.key) == nil }
        return (own + added).map { TransferHeader(name: $0.key, value: $0.value) }
    }

    /// `interval` in milliseconds, for the wire; 0, appexd's default, if it is not positive.
    static func milliseconds(_ interval: TimeInterval) -> UInt64 {
        guard interval.isFinite, interval > 0 else { return 0 }
        return UInt64(min(interval * 1000, 1e15))
    }
}
