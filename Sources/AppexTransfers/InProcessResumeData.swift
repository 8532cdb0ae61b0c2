import Foundation
import Glibc

/// The resume data of an in-process download that ended with its bytes kept: opaque to the
/// app, which gives it back to `downloadTask(withResumeData:)` of an in-process session. A
/// binary property list of the download's URL, its partial file, how many bytes that holds,
/// and the validator the server gave them (under the keys Apple's resume data uses).
///
/// The app holds it, and it could be changed there, so the file it names is taken only from
/// the process's temporary folder, by the name in-process downloads give their files, never
/// through a link, and only if it holds the bytes it claims.
struct InProcessResumeData: Equatable {
    var url: URL
    /// The partial file, in the process's temporary folder.
    var file: URL
    var bytesReceived: Int64
    /// The `ETag` the server gave, or else its `Last-Modified`: sent back in `If-Range`.
    var validator: String

    private static let urlKey = "NSURLSessionDownloadURL"
    private static let bytesKey = "NSURLSessionResumeBytesReceived"
    private static let fileKey = "NSURLSessionResumeInfoLocalPath"
    private static let validatorKey = "NSURLSessionResumeEntityTag"

    init(url: URL, file: URL, bytesReceived: Int64, validator: String) {
        self.url = url
        self.file = file
        self.bytesReceived = bytesReceived
        self.validator = validator
    }

    /// Reads `data`; nil if it is not resume data an in-process session made.
    init?(_ data: Data) {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let url = (plist[Self.urlKey] as? String).flatMap(URL.init(string:)),
              let path = plist[Self.fileKey] as? String,
              let bytes = (plist[Self.bytesKey] as? NSNumber)?.int64Value, bytes > 0,
              let validator = plist[Self.validatorKey] as? String
        else { return nil }
        self.init(url: url, file: URL(fileURLWithPath: path), bytesReceived: bytes, validator: validator)
    }

    /// The data the app holds.
    var data: Data {
        let plist: [String: Any] = [Self.urlKey: url.absoluteString, Self.fileKey: file.path,
                                    Self.bytesKey: NSNumber(value: bytesReceived), Self.validatorKey: validator]
        return (try? PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)) ?? Data()
    }

    /// A new file for an in-process download, in the process's temporary folder, as Apple's
    /// downloads have theirs.
    static func newFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(filePrefix)\(UUID().uuidString).tmp")
    }

    private static let filePrefix = "CFNetworkDownload_"

    /// Opens the partial file for writing on from its bytes: cut to them, at their end.
    /// Throws, saying why, if the file is not one an in-process download made here, is gone,
    /// is a link, or holds fewer bytes than the data says.
    func openPartialFile() throws -> FileHandle {
        let folder = FileManager.default.temporaryDirectory.standardizedFileURL.path
        let name = file.lastPathComponent
        guard file.deletingLastPathComponent().standardizedFileURL.path == folder, name.hasPrefix(Self.filePrefix), name.hasSuffix(".tmp") else {
            throw Self.unusable("it names \(file.path), which is not the partial file of an in-process download of this process")
        }
        let descriptor = open(file.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.unusable("its partial file \(file.path) can't be opened: \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw Self.unusable("its partial file \(file.path) is not a regular file")
        }
        guard Int64(status.st_size) >= bytesReceived, ftruncate(descriptor, off_t(bytesReceived)) == 0, lseek(descriptor, 0, SEEK_END) >= 0 else {
            throw Self.unusable("its partial file \(file.path) holds \(status.st_size) bytes, fewer than the \(bytesReceived) it had")
        }
        return handle
    }

    /// Why resume data can't be used, as Apple's sessions say it: `URLError.cannotOpenFile`.
    static func unusable(_ why: String) -> URLError {
        URLError(.cannotOpenFile, userInfo: [
            NSLocalizedDescriptionKey: "the resume data can't be used: \(why)",
            NSLocalizedRecoverySuggestionErrorKey: "Download the file again with downloadTask(with:).",
        ])
    }
}
