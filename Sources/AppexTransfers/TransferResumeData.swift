public import Foundation
import AppexWire

/// The resume data of a background download that ended with its bytes kept, as
/// `URLSession` hands it over: opaque to the app, which gives it back to
/// `downloadTask(withResumeData:)`. A binary property list naming the ended download whose
/// bytes appexd keeps, with its URL and the bytes it had, under the keys Apple's resume data
/// uses for those two. appexd checks that the download is the app's own and still waits; a
/// forged one names nothing it may take.
struct TransferResumeData: Equatable {
    /// The ended download's id, as appexd knows it.
    var task: String
    var url: URL
    /// The bytes it had when it ended.
    var bytesReceived: Int64

    private static let taskKey = "AppexTransferTask"
    private static let urlKey = "NSURLSessionDownloadURL"
    private static let bytesKey = "NSURLSessionResumeBytesReceived"

    init(task: String, url: URL, bytesReceived: Int64) {
        self.task = task
        self.url = url
        self.bytesReceived = bytesReceived
    }

    /// The resume data of the download `info` reports, if it ended with its bytes kept.
    init?(_ info: TransferTaskInfo) {
        guard info.resumable, info.kind == "download", let url = URL(string: info.url) else { return nil }
        self.init(task: info.id, url: url, bytesReceived: info.bytesReceived)
    }

    /// Reads `data`; nil if it is not resume data this system made.
    init?(_ data: Data) {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let task = plist[Self.taskKey] as? String, UUID(uuidString: task) != nil,
              let url = (plist[Self.urlKey] as? String).flatMap(URL.init(string:))
        else { return nil }
        self.init(task: task, url: url, bytesReceived: (plist[Self.bytesKey] as? NSNumber)?.int64Value ?? 0)
    }

    /// The data the app holds.
    var data: Data {
        let plist: [String: Any] = [Self.taskKey: task, Self.urlKey: url.absoluteString, Self.bytesKey: NSNumber(value: bytesReceived)]
        return (try? PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)) ?? Data()
    }
}

/// The key of a failed or cancelled download's error's `userInfo` under which its resume
/// data is, when it may resume, as on Apple's systems.
public let NSURLSessionDownloadTaskResumeData = "NSURLSessionDownloadTaskResumeData"

/// The byte count a delegate is given when the server did not say how many to expect.
public let NSURLSessionTransferSizeUnknown: Int64 = -1

extension URLError {
    /// The resume data of the download this error ended, if it may resume: for
    /// `downloadTask(withResumeData:)`.
    public var downloadTaskResumeData: Data? {
        userInfo[NSURLSessionDownloadTaskResumeData] as? Data
    }
}
