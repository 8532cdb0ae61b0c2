import AppexLocking
import Foundation

/// A task of an in-process session: what it sends, who hears its end, what a download goes
/// on from, and, once it is resumed, the transport's task and a download's file.
final class InProcessPart: Sendable {
    /// Who hears an in-process task's end in one call, instead of the delegate.
    enum Completion: Sendable {
        case data(@Sendable (Data?, URLResponse?, (any Error)?) -> Void)
        case download(@Sendable (URL?, URLResponse?, (any Error)?) -> Void)
    }

    let body: InProcessBody
    let completion: Completion?
    /// The resume data a download goes on from, or why it can't.
    let resuming: Result<InProcessResumeData, URLError>?
    private let state = Locked<(task: (any InProcessTask)?, download: InProcessDownload?, received: Data)>((nil, nil, Data()))

    init(body: InProcessBody, completion: Completion?, resuming: Result<InProcessResumeData, URLError>? = nil) {
        self.body = body
        self.completion = completion
        self.resuming = resuming
    }

    var task: (any InProcessTask)? {
        get { state.withLock { $0.task } }
        set { state.withLock { $0.task = newValue } }
    }

    /// A download's file, once it is resumed, or once the data task became a download.
    var download: InProcessDownload? {
        get { state.withLock { $0.download } }
        set { state.withLock { $0.download = newValue } }
    }

    /// Keeps `data` for the completion handler.
    func keep(_ data: Data) { state.withLock { $0.received.append(data) } }
    var received: Data { state.withLock { $0.received } }
}

/// How an in-process session runs its tasks (the API is in URLSession.swift): through the
/// transport, whose reports reach each task's completion handler or the delegates.
extension URLSession {
    // MARK: Running them

    /// Hands `task` to the transport, which reports it here; a task a background session
    /// can't take, or that no transport can run, completes at once with the reason.
    func startInProcess(_ task: URLSessionTask, _ part: InProcessPart) {
        guard configuration.identifier == nil else {
            return fail(task, TransferErrors.unusable(.unknown,
                "background session \(identifier) takes no data task and no completion handler, as on Apple's systems, where the call raises",
                recovery: "Use uploadTask(with:fromFile:) or downloadTask(with:) and hear their ends through the session's delegate."))
        }
        if let unusable = state.withLock({ $0.unusable }) { return fail(task, unusable) }
        if case .failure(let unusable)? = part.resuming { return fail(task, unusable) }
        guard let transport, var request = task.originalRequest else {
            return fail(task, TransferErrors.unusable(.badURL, "the task has no URL", recovery: "Make the task with a request that has one."))
        }
        if let running = part.task { return running.resume() }
        if let download = task as? URLSessionDownloadTask {
            let resuming = try? part.resuming?.get()
            let writer = InProcessDownload(session: self, task: download, part: part, resuming: resuming)
            if let failure = writer.begin() { return fail(task, failure) }
            part.download = writer
            if let resuming {
                request.setValue("bytes=\(resuming.bytesReceived)-", forHTTPHeaderField: "Range")
                request.setValue(resuming.validator, forHTTPHeaderField: "If-Range")
            }
        }
        let number = task.taskIdentifier
        let inner = transport.task(for: request, body: part.body, events: events(of: task, part))
        part.task = inner
        state.withLock { $0.tasks[number] = task }
        inner.resume()
    }

    /// How the transport's reports reach `task`, its completion handler and the delegates.
    private func events(of task: URLSessionTask, _ part: InProcessPart) -> InProcessEvents {
        let gate = AnswerGate(
            deliver: { [self] data in
                guard let dataTask = task as? URLSessionDataTask else { return }
                tell(task, (any URLSessionDataDelegate).self) { [self] delegate in
                    delegate.urlSession(self, dataTask: dataTask, didReceive: data)
                }
            },
            finish: { [self] error in
                delegateQueue.addOperation { [self] in finishInProcess(task, part, error) }
            },
            cancel: { part.task?.cancel() })
        return InProcessEvents(
            answered: { [self] response in
                if task is URLSessionDownloadTask, let download = part.download {
                    task.status.withLock { $0.response = response }
                    return download.answered(response)
                }
                task.status.withLock { status in
                    status.response = response
                    status.countOfBytesExpectedToReceive = response.expectedContentLength
                }
                task.reportProgress()
                // A data task's delegate decides what becomes of the answer before it hears the body.
                guard let dataTask = task as? URLSessionDataTask, part.completion == nil,
                      let delegate = delegate(of: task, (any URLSessionDataDelegate).self) else { return }
                gate.hold()
                let decided = Once<URLSession.ResponseDisposition> { [self] disposition in decide(disposition, dataTask, part, gate) }
                delegateQueue.addOperation { [self] in
                    delegate.urlSession(self, dataTask: dataTask, didReceive: response, completionHandler: decided.call)
                }
            },
            received: { data in
                if task is URLSessionDownloadTask, let download = part.download { return download.write(data) }
                task.status.withLock { $0.countOfBytesReceived += Int64(data.count) }
                task.reportProgress()
                guard part.completion == nil else { return part.keep(data) }
                gate.pass(data)
            },
            sent: { [self] now, total, expected in
                task.status.withLock { status in
                    status.countOfBytesSent = total
                    status.countOfBytesExpectedToSend = expected
                }
                task.reportProgress()
                tell(task, (any URLSessionTaskDelegate).self) { [self] delegate in
                    delegate.urlSession(self, task: task, didSendBodyData: now, totalBytesSent: total, totalBytesExpectedToSend: expected)
                }
            },
            completed: { error in
                guard task is URLSessionDownloadTask, let download = part.download else { return gate.end(error) }
                download.end(error)
            },
            challenged: { [self] challenge, answer in
                let asked = proposingKeptCredential(challenge)
                let answered = Once<(URLSession.AuthChallengeDisposition, URLCredential?)> { [self] in
                    let (disposition, credential) = settle(asked, $0.0, $0.1)
                    answer(disposition, credential)
                }
                // Asked of a task with a completion handler too, as Apple's are.
                guard let delegate = delegate(of: task, (any URLSessionTaskDelegate).self, evenWithCompletionHandler: true) else {
                    return answered.call((.performDefaultHandling, nil))
                }
                delegateQueue.addOperation { [self] in
                    delegate.urlSession(self, task: task, didReceive: asked) { answered.call(($0, $1)) }
                }
            },
            redirected: { [self] response, request, answer in
                let followed = Once<URLRequest?> { next in
                    if let next { task.status.withLock { $0.redirectedRequest = next } }
                    answer(next)
                }
                guard let delegate = delegate(of: task, (any URLSessionTaskDelegate).self, evenWithCompletionHandler: true) else {
                    return followed.call(request)
                }
                delegateQueue.addOperation { [self] in
                    delegate.urlSession(self, task: task, willPerformHTTPRedirection: response, newRequest: request, completionHandler: followed.call)
                }
            })
    }

    /// `challenge`, proposing the credential the session kept for its space, if it kept one
    /// and the challenge proposes none.
    private func proposingKeptCredential(_ challenge: URLAuthenticationChallenge) -> URLAuthenticationChallenge {
        guard challenge.proposedCredential == nil, let kept = state.withLock({ $0.credentials[challenge.protectionSpace] }) else { return challenge }
        return URLAuthenticationChallenge(challenge.protectionSpace, proposedCredential: kept, previousFailureCount: challenge.previousFailureCount,
                                          failureResponse: challenge.failureResponse, error: challenge.error)
    }

    /// What the transport does with the delegate's answer to `challenge`: a credential to be
    /// kept is kept for its space; default handling sends the one proposed, the first time.
    private func settle(_ challenge: URLAuthenticationChallenge, _ disposition: AuthChallengeDisposition,
                        _ credential: URLCredential?) -> (AuthChallengeDisposition, URLCredential?) {
        switch disposition {
        case .useCredential:
            if let credential, credential.persistence != .none {
                state.withLock { $0.credentials[challenge.protectionSpace] = credential }
            }
            return (disposition, credential)
        case .performDefaultHandling where challenge.proposedCredential != nil && challenge.previousFailureCount == 0:
            return (.useCredential, challenge.proposedCredential)
        default:
            return (disposition, credential)
        }
    }

    /// Ends `task`, on the delegate queue: its completion handler or its delegate hears how.
    func finishInProcess(_ task: URLSessionTask, _ part: InProcessPart, _ error: (any Error)?) {
        let handedOver = task.status.withLock { status -> Bool in
            status.state = .completed
            status.error = error
            return status.downloadHandedOver
        }
        switch part.completion {
        case .data(let handler):
            handler(error == nil ? part.received : nil, task.response, error)
        case .download(let handler):
            if !handedOver { handler(nil, task.response, error ?? URLError(.badServerResponse)) }
        case nil:
            delegate(of: task, (any URLSessionTaskDelegate).self)?.urlSession(self, task: task, didCompleteWithError: error)
        }
        state.withLock { _ = $0.tasks.removeValue(forKey: task.taskIdentifier) }
        invalidateIfFinished()
    }

    /// `task`'s own delegate if it is a `Delegate`, else the session's. A task with a
    /// completion handler has only its own, as Apple's bypasses the session's delegate for
    /// it, but for challenges and redirects (`evenWithCompletionHandler`).
    func delegate<Delegate>(of task: URLSessionTask, _ kind: Delegate.Type, evenWithCompletionHandler: Bool = false) -> Delegate? {
        let ownOnly = task.inProcess?.completion != nil && !evenWithCompletionHandler
        return (task.delegate as? Delegate) ?? (ownOnly ? nil : state.withLock({ $0.delegate }) as? Delegate)
    }

    /// Calls `task`'s own delegate if it is a `Delegate`, else the session's, on the delegate
    /// queue; a task with a completion handler tells only its own, as Apple's bypasses the
    /// session's delegate for it.
    func tell<Delegate>(_ task: URLSessionTask, _ kind: Delegate.Type, _ body: @escaping @Sendable (Delegate) -> Void) {
        delegateQueue.addOperation { [self] in
            if let delegate = delegate(of: task, kind) { body(delegate) }
        }
    }

    /// The next number of an in-process session's task, which it has from when it is made.
    func nextLocalTaskNumber() -> Int {
        state.withLock { state in
            state.lastLocalTask += 1
            return state.lastLocalTask
        }
    }
}
