import AppexLocking
public import AppexTransfers
import Foundation
import FoundationNetworking

/// The transport of in-process sessions (``AppexTransfers/InProcessTransport``): each
/// Appex `URLSession` of a default or ephemeral configuration runs its tasks on a
/// FoundationNetworking session of its own, whose reports it relays. AppexTransfers finds
/// this class by its name in a program that links this product; nothing imports it.
public final class FoundationTransport: InProcessTransport, @unchecked Sendable {
    private let session: FoundationNetworking.URLSession
    private let relay = Relay()

    public init(settings: InProcessSettings) {
        let configuration: FoundationNetworking.URLSessionConfiguration = settings.ephemeral ? .ephemeral : .default
        configuration.timeoutIntervalForRequest = settings.timeoutIntervalForRequest
        configuration.timeoutIntervalForResource = settings.timeoutIntervalForResource
        configuration.httpAdditionalHeaders = settings.httpAdditionalHeaders
        configuration.requestCachePolicy = FoundationNetworking.URLRequest.CachePolicy(rawValue: settings.requestCachePolicy.rawValue) ?? .useProtocolCachePolicy
        configuration.httpShouldSetCookies = settings.httpShouldSetCookies
        configuration.httpMaximumConnectionsPerHost = settings.httpMaximumConnectionsPerHost
        // Its own serial queue: the relay's reports go on to the Appex session's queue, which
        // may wait for a download's hand-over while this one holds the file.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "in-process session transport"
        session = FoundationNetworking.URLSession(configuration: configuration, delegate: relay, delegateQueue: queue)
    }

    /// The Appex session, and so each of its tasks, is gone: FoundationNetworking's session,
    /// which would keep its connections and its delegate for the process's life, goes too.
    deinit {
        session.finishTasksAndInvalidate()
    }

    public func task(for request: AppexTransfers.URLRequest, body: InProcessBody, download: Bool, events: InProcessEvents) -> any InProcessTask {
        let converted = Self.request(request)
        let inner: FoundationNetworking.URLSessionTask = switch (body, download) {
        case (_, true): session.downloadTask(with: converted)
        case (.data(let data), false): session.uploadTask(with: converted, from: data)
        case (.file(let file), false): session.uploadTask(with: converted, fromFile: file)
        case (.none, false): session.dataTask(with: converted)
        }
        relay.add(inner, events)
        return RelayedTask(inner)
    }

    public func invalidate(cancellingTasks: Bool) {
        if cancellingTasks { session.invalidateAndCancel() } else { session.finishTasksAndInvalidate() }
    }

    /// `request` as FoundationNetworking's.
    static func request(_ request: AppexTransfers.URLRequest) -> FoundationNetworking.URLRequest {
        var converted = FoundationNetworking.URLRequest(url: request.url ?? URL(fileURLWithPath: "/"),
                                                        cachePolicy: .init(rawValue: request.cachePolicy.rawValue) ?? .useProtocolCachePolicy,
                                                        timeoutInterval: request.timeoutInterval)
        converted.httpMethod = request.httpMethod
        converted.allHTTPHeaderFields = request.allHTTPHeaderFields
        converted.httpBody = request.httpBody
        converted.httpShouldHandleCookies = request.httpShouldHandleCookies
        return converted
    }

    /// FoundationNetworking's answer as Appex's, its header fields with it.
    static func response(_ response: FoundationNetworking.URLResponse) -> AppexTransfers.URLResponse {
        guard let http = response as? FoundationNetworking.HTTPURLResponse else {
            return AppexTransfers.URLResponse(url: response.url, expectedContentLength: response.expectedContentLength,
                                              mimeType: response.mimeType, textEncodingName: response.textEncodingName)
        }
        let fields = http.allHeaderFields.compactMap { field -> (name: String, value: String)? in
            guard let name = field.key as? String else { return nil }
            return (name, "\(field.value)")
        }.sorted { $0.name < $1.name }
        return AppexTransfers.HTTPURLResponse(url: http.url, statusCode: http.statusCode, expectedContentLength: http.expectedContentLength,
                                              headerFields: fields)
    }
}

/// One task, as the Appex session drives it.
final class RelayedTask: InProcessTask, @unchecked Sendable {
    private let inner: FoundationNetworking.URLSessionTask

    init(_ inner: FoundationNetworking.URLSessionTask) {
        self.inner = inner
    }

    func resume() { inner.resume() }
    func suspend() { inner.suspend() }
    func cancel() { inner.cancel() }
}

/// FoundationNetworking's delegate: passes each task's reports to its events, in order, on
/// the transport's queue.
final class Relay: NSObject, FoundationNetworking.URLSessionDataDelegate, FoundationNetworking.URLSessionDownloadDelegate, @unchecked Sendable {
    private struct Entry {
        var events: InProcessEvents
        var answered = false
    }

    private let entries = Locked<[ObjectIdentifier: Entry]>([:])

    func add(_ task: FoundationNetworking.URLSessionTask, _ events: InProcessEvents) {
        entries.withLock { $0[ObjectIdentifier(task)] = Entry(events: events) }
    }

    /// `task`'s events, having told them its answer first if they have not heard it.
    private func events(of task: FoundationNetworking.URLSessionTask) -> InProcessEvents? {
        let (entry, tell) = entries.withLock { entries -> (Entry?, Bool) in
            guard var entry = entries[ObjectIdentifier(task)] else { return (nil, false) }
            let tell = !entry.answered && task.response != nil
            entry.answered = entry.answered || tell
            entries[ObjectIdentifier(task)] = entry
            return (entry, tell)
        }
        if tell, let response = task.response { entry?.events.answered(FoundationTransport.response(response)) }
        return entry?.events
    }

    func urlSession(_ session: FoundationNetworking.URLSession, dataTask: FoundationNetworking.URLSessionDataTask,
                    didReceive response: FoundationNetworking.URLResponse,
                    completionHandler: @escaping @Sendable (FoundationNetworking.URLSession.ResponseDisposition) -> Void) {
        _ = events(of: dataTask)
        completionHandler(.allow)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, dataTask: FoundationNetworking.URLSessionDataTask, didReceive data: Data) {
        events(of: dataTask)?.received(data)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, task: FoundationNetworking.URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        events(of: task)?.sent(bytesSent, totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, downloadTask: FoundationNetworking.URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        events(of: downloadTask)?.written(bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, downloadTask: FoundationNetworking.URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        events(of: downloadTask)?.downloaded(location)
    }

    func urlSession(_ session: FoundationNetworking.URLSession, task: FoundationNetworking.URLSessionTask, didCompleteWithError error: (any Error)?) {
        let events = events(of: task)
        entries.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(task)) }
        events?.completed(error)
    }
}
