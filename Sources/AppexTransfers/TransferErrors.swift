import AppexWire
import Foundation

/// The errors a background session reports, as Apple's: `URLError` where appexd's error is
/// in its domain or a task was cancelled, and an `NSError` in appexd's domain otherwise,
/// each with its message and what to do.
enum TransferErrors {
    /// appexd's refusal as an error.
    static func error(_ info: ErrorInfo) -> any Error {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: info.message]
        if !info.recoverySuggestion.isEmpty { userInfo[NSLocalizedRecoverySuggestionErrorKey] = info.recoverySuggestion }
        if info.domain == URLErrorDomain.name, let code = URLError.Code(rawValue: info.code) { return URLError(code, userInfo: userInfo) }
        return NSError(domain: info.domain, code: info.code, userInfo: userInfo)
    }

    /// Why a task ended without the server's answer, or nil if it has one; with its resume
    /// data, if it is a download that may resume.
    static func completion(of info: TransferTaskInfo) -> (any Error)? {
        var userInfo: [String: Any] = [:]
        if let resumeData = TransferResumeData(info) { userInfo[NSURLSessionDownloadTaskResumeData] = resumeData.data }
        switch info.state {
        case "cancelled":
            userInfo[NSLocalizedDescriptionKey] = "the task was cancelled"
            return URLError(.cancelled, userInfo: userInfo)
        case "failed":
            // The code URLSession would give, and appexd's reason, which says more.
            userInfo[NSLocalizedDescriptionKey] = info.error.isEmpty ? "the task failed" : info.error
            return URLError(URLError.Code(rawValue: info.errorCode) ?? .unknown, userInfo: userInfo)
        default:
            return nil
        }
    }

    /// A session that can't be made for a reason found here, before asking appexd.
    static func unusable(_ code: URLError.Code, _ message: String, recovery: String) -> any Error {
        URLError(code, userInfo: [NSLocalizedDescriptionKey: message, NSLocalizedRecoverySuggestionErrorKey: recovery])
    }
}
