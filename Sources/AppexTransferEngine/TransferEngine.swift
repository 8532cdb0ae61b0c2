public import AppexRegistry
import AppexSystem
import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Performs the registry's background transfers (docs/transfers.md): starts each waiting
/// task when it may run, streams it over HTTP, and records how it ended: retried with
/// backoff, completed with the server's answer, or failed with the reason.
///
/// The registry is the truth. The engine keeps nothing a restart would need, so a process
/// killed at any moment loses no task and ends none twice: ``run()`` starts by putting back
/// the tasks an earlier engine was running, so only one engine may serve a home at a time.
///
/// Its HTTP client and the thread that drives it exist only while a task runs.
///
/// ```swift
/// let engine = TransferEngine(registry: registry, downloadsFolder: home.groupsDirectory)
/// await engine.run()        // until the task running it is cancelled
/// ```
public actor TransferEngine {
    private struct Running {
        let live: LiveTransfer
        let attempt: Task<Void, Never>
    }

    private let registry: Registry
    /// The folder every download's destination lies below, which extensions can't change:
    /// a home's `Groups/`. Nothing below it is followed if it is a link.
    public nonisolated let downloadsFolder: URL
    private let policy: TransferPolicy
    private let trustedCertificates: URL?
    private let observer: @Sendable (TransferTask) -> Void
    private let report: @Sendable (String) -> Void
    private var running: [UUID: Running] = [:]
    private var http: (client: HTTPClient, threads: MultiThreadedEventLoopGroup)?
    private let wakes = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    /// - Parameters:
    ///   - downloadsFolder: the folder every download's destination lies below (a home's
    ///     `Groups/`); a destination elsewhere fails.
    ///   - trustedCertificates: a PEM file of the certificate authorities that HTTPS servers
    ///     are verified against, instead of the system's; `nil` trusts the system's.
    ///   - observer: told of each task's progress and each change of its state, from any task.
    ///   - report: told, in words, what went wrong that no task's state says; standard error
    ///     by default.
    public init(registry: Registry, downloadsFolder: URL, policy: TransferPolicy = .standard, trustedCertificates: URL? = nil,
                observer: @escaping @Sendable (TransferTask) -> Void = { _ in },
                report: @escaping @Sendable (String) -> Void = TransferEngine.reportToStandardError) {
        self.registry = registry
        self.downloadsFolder = downloadsFolder
        self.policy = policy
        self.trustedCertificates = trustedCertificates
        self.observer = observer
        self.report = report
    }

    /// Performs transfers until the calling task is cancelled or, given `idleGrace`, until no
    /// task has been waiting or running for that long. Then it stops the running attempts,
    /// which wait to run again, and shuts its HTTP client down.
    public func run(untilIdleFor idleGrace: Duration? = nil) async {
        do {
            try registry.requeueInterruptedTransfers()
        } catch {
            report("could not requeue the transfers an earlier engine was running: \(error)")
        }
        var wakes = wakes.stream.makeAsyncIterator()
        var idleSince: ContinuousClock.Instant?
        while !Task.isCancelled {
            var next: Date?
            var looked = true
            do {
                try stopAttemptsEndedElsewhere()
                next = try startRunnable()
            } catch {
                report("could not read the transfers to run; trying again in a second: \(error)")
                next = Date().addingTimeInterval(1)
                looked = false
            }
            if running.isEmpty {
                await shutDownClient()
            }
            if let idleGrace, looked, running.isEmpty, next == nil {
                let now = ContinuousClock.now
                let since = idleSince ?? now
                idleSince = since
                if now - since >= idleGrace { break }
                next = Date().addingTimeInterval((since + idleGrace - now).timeInterval)
            } else {
                idleSince = nil
            }
            let timer = next.map { date in
                Task { [weak self] in
                    // At most an hour, so that no date read from the registry can overflow the sleep;
                    // waking early only means looking again.
                    try? await Task.sleep(for: .milliseconds(Int64(min(max(0, date.timeIntervalSinceNow), 3600) * 1000) + 1))
                    self?.wake()
                }
            }
            _ = await wakes.next()
            timer?.cancel()
        }
        await stopAttempts()
    }

    /// Asks the engine to look at the registry again: a task was added, or one ended elsewhere.
    public nonisolated func wake() {
        wakes.continuation.yield()
    }

    /// Cancels the task `id`, running or waiting: it ends as cancelled, a download's kept
    /// bytes go, and its events say so. False if it had already ended.
    @discardableResult
    public func cancel(_ id: UUID) throws(RegistryError) -> Bool {
        guard try registry.finishTransfer(id, .cancelled, failure: .cancelled) else { return false }
        if let entry = running[id] {
            // The attempt sees the interruption, and its end cleans up.
            entry.live.interrupt(.cancelled)
            entry.attempt.cancel()
        } else if let task = try registry.transfer(id) {
            PartialDownload(task, below: downloadsFolder)?.discard()
            observer(task)
        }
        return true
    }

    /// Stops the attempts at tasks that ended elsewhere, such as cancelled by appexd for a
    /// process attached to their session, or whose app was uninstalled.
    private func stopAttemptsEndedElsewhere() throws(RegistryError) {
        for (id, entry) in running {
            if let task = try registry.transfer(id), !task.state.isFinal { continue }
            entry.live.interrupt(.cancelled)
            entry.attempt.cancel()
        }
    }

    /// Starts the waiting tasks that may run now, as many as the policy allows, and returns
    /// when the next waiting one may.
    private func startRunnable() throws(RegistryError) -> Date? {
        let now = Date()
        let (ready, next) = try registry.runnableTransfers(at: now)
        // A download made from resume data waits while the attempt it took the bytes of ends.
        for task in ready where running[task.id] == nil && task.resumesFrom.map({ running[$0] == nil }) ?? true
            && running.count < policy.concurrentTransfers {
            if now >= task.resourceDeadline {
                try end(task, .failed, Self.resourceTimeout(task))
                notify(task.id)
                continue
            }
            if task.attempts >= policy.maximumAttempts {
                try end(task, .failed, TransferFailure(task.errorCode ?? .unknown, "gave up after \(task.attempts) attempts: \(task.error ?? "each failed")"))
                notify(task.id)
                continue
            }
            guard let started = try registry.startTransfer(task.id) else { continue }
            start(started)
        }
        return next
    }

    private func start(_ task: TransferTask) {
        let client = httpClient()
        let live = LiveTransfer(task, registry: registry, progressInterval: policy.progressInterval, observer: observer)
        let attempt = TransferAttempt(live: live, client: client, watchInterval: policy.watchInterval, downloadsFolder: downloadsFolder)
        running[task.id] = Running(live: live, attempt: Task {
            let outcome = await attempt.perform()
            self.conclude(task.id, outcome)
        })
        observer(task)
    }

    /// Records how the attempt at task `id` ended, and what the task does next.
    private func conclude(_ id: UUID, _ outcome: AttemptOutcome) {
        guard let entry = running.removeValue(forKey: id) else { return }
        entry.live.record()
        let task = entry.live.task
        do {
            switch outcome {
            case .answered(let status, let retryAfter, _) where TransferPolicy.retriedStatusCodes.contains(status):
                let answer = TransferFailure(.badServerResponse, "the server answered \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)")
                try retryOrFail(task, answer, retryAfter: retryAfter)
            case .answered(let status, _, let location):
                let upload = task.kind == .upload
                if try !registry.finishTransfer(id, .completed, statusCode: status, downloadedTo: upload ? nil : location,
                                                answerBody: upload ? location : nil) {
                    // Cancelled as it completed: the file nobody will be told of goes.
                    if let location, upload {
                        try? FileManager.default.removeItem(at: location)
                    } else if let location {
                        ConfinedFolder.removeFile(atPath: location.path, below: downloadsFolder.path)
                    }
                }
            case .failed(let failure):
                try retryOrFail(task, failure, retryAfter: nil)
            case .impossible(let failure):
                try end(task, .failed, failure)
            case .interrupted(.cancelled):
                // Unless cancel(byProducingResumeData:) kept them. Bytes another task took
                // were renamed away: nothing of them is left at this task's name.
                if try registry.transfer(id)?.resumableUntil == nil {
                    PartialDownload(task, below: downloadsFolder)?.discard()
                }
            case .interrupted(.stalled(let timeout)):
                try retryOrFail(task, TransferFailure(.timedOut, "no byte came or went for \(Self.describe(timeout)) (the request's timeout)"), retryAfter: nil)
            case .interrupted(.resourceTimeout):
                try end(task, .failed, Self.resourceTimeout(task))
            case .interrupted(.stopping):
                try registry.retryTransfer(id, at: Date(), after: .processStopped)
            }
        } catch {
            report("could not record how transfer \(id) (\(task.sessionIdentifier) #\(task.taskIdentifier)) ended: \(error)")
        }
        notify(id)
        wake()
    }

    /// After a failed attempt: another after the backoff, or, the attempts spent, the end.
    private func retryOrFail(_ task: TransferTask, _ failure: TransferFailure, retryAfter: Duration?) throws(RegistryError) {
        if task.attempts >= policy.maximumAttempts {
            try end(task, .failed, TransferFailure(failure.code, "gave up after \(task.attempts) attempts: \(failure.reason)"))
        } else {
            // No later than the resource deadline, where the task fails anyway: a server's
            // Retry-After of a billion seconds must not make a date the registry can't keep.
            let delay = policy.retryDelay(after: task.attempts, retryAfter: retryAfter)
            let next = min(Date().addingTimeInterval(delay.timeInterval), task.resourceDeadline)
            try registry.retryTransfer(task.id, at: next, after: failure)
        }
    }

    /// Ends `task` without an answer. A download's kept bytes go, unless it may resume:
    /// then they wait for its resume data, as `URLSession` gives a failed download's.
    private func end(_ task: TransferTask, _ state: TransferTask.State, _ failure: TransferFailure) throws(RegistryError) {
        let file = PartialDownload(task, below: downloadsFolder)
        let keeps = task.mayResume && (file?.keptBytes() ?? 0) > 0
        try registry.finishTransfer(task.id, state, failure: failure,
                                    resumableUntil: keeps ? Date().addingTimeInterval(TransferTask.resumeDataLifetime) : nil)
        if !keeps { file?.discard() }
    }

    /// Tells the observer how task `id` stands now.
    private func notify(_ id: UUID) {
        if let task = try? registry.transfer(id) {
            observer(task)
        }
    }

    /// Stops every running attempt and waits for each to put its task back.
    private func stopAttempts() async {
        let attempts = running.values
        for entry in attempts {
            entry.live.interrupt(.stopping)
            entry.attempt.cancel()
        }
        for entry in attempts {
            await entry.attempt.value
        }
        await shutDownClient()
    }

    private func httpClient() -> HTTPClient {
        if let http { return http.client }
        let threads = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 10, allowCycles: false)
        configuration.timeout = .init(connect: .seconds(30))
        // A refused connection fails the attempt at once; the policy, not the client, retries.
        configuration.connectionPool.retryConnectionEstablishment = false
        if let trustedCertificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(trustedCertificates.path)
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(eventLoopGroup: threads, configuration: configuration)
        http = (client, threads)
        return client
    }

    private func shutDownClient() async {
        guard let http else { return }
        self.http = nil
        do {
            try await http.client.shutdown()
            try await http.threads.shutdownGracefully()
        } catch {
            report("could not shut the transfers' HTTP client down: \(error)")
        }
    }

    private static func resourceTimeout(_ task: TransferTask) -> TransferFailure {
        TransferFailure(.timedOut, "its resource timeout (\(describe(task.resourceDeadline.timeIntervalSince(task.createdAt)))) passed before it could finish")
    }

    private static func describe(_ interval: TimeInterval) -> String {
        interval >= 86400 && interval.truncatingRemainder(dividingBy: 86400) == 0 ? "\(Int(interval / 86400)) days"
            : interval >= 1 ? "\(interval.formatted(.number.precision(.fractionLength(0...1)))) s"
            : "\(Int(interval * 1000)) ms"
    }

    /// Writes `message` to standard error, after the program's name.
    public static let reportToStandardError: @Sendable (String) -> Void = { message in
        let program = URL(fileURLWithPath: CommandLine.arguments.first ?? "transfers").lastPathComponent
        StandardError.write(line: "\(program): transfers: \(message)")
    }
}
