public import Foundation

/// What a background ``URLSession`` tells its delegate about itself, as on Apple's systems.
/// Every method has a default that does nothing; the session calls them on its delegate
/// queue, one at a time if the queue is serial (the session's own queue is).
public protocol URLSessionDelegate: AnyObject, Sendable {
    /// The session ended: invalidated by the app (`error` nil), or made unusable, as when
    /// another process is attached to it or its group can't be used (`error` says why).
    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)

    /// Every event that waited for the session, while no process was attached to it, has
    /// been delivered: the moment to call the completion handler that
    /// `handleEventsForBackgroundURLSession` gave the app.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)
}

/// What a background session tells its delegate about a task.
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    /// The task ended: `error` is nil if the server answered (whatever its status code,
    /// which `task.response` holds), `URLError.cancelled` if it was cancelled, else why it failed.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)

    /// An upload's body went on: `bytesSent` more since the last call.
    func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
}

/// What a background session tells its delegate about a data task's answer: here, an
/// upload's, which is a data task.
public protocol URLSessionDataDelegate: URLSessionTaskDelegate {
    /// Part of the answer's body arrived: here, once, before the task completes, the first
    /// 64 KiB of it (appexd keeps no more).
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)
}

/// What a background session tells its delegate about a download.
public protocol URLSessionDownloadDelegate: URLSessionTaskDelegate {
    /// The download is complete at `location`, in the group's container. The file is
    /// removed when this returns: read it or move it before.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL)

    /// A download's body went on: `bytesWritten` more since the last call.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)

    /// A download made from resume data was answered: it goes on from `fileOffset`, the
    /// bytes kept, or from 0 if the server would not resume; `expectedTotalBytes` is the
    /// whole file's length, or ``NSURLSessionTransferSizeUnknown``.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64)
}

extension URLSessionDelegate {
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {}
}

extension URLSessionTaskDelegate {
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                           totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {}
}

extension URLSessionDataDelegate {
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
}

extension URLSessionDownloadDelegate {
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
                           expectedTotalBytes: Int64) {}
}
