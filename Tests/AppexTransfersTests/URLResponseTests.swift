@testable import AppexTransfers
import AppexWire
import Foundation
import Testing

/// The server's answer as a task reports it, and the resume data the app holds.
struct URLResponseTests {
    @Test func anAnswersHeaderFieldsAreFoundWithoutRegardToCaseAndJoinedWhenRepeated() throws {
        let response = HTTPURLResponse(url: URL(string: "https://example.com/up"), statusCode: 201, headerFields: [
            (name: "Content-Type", value: "application/JSON; charset=\"UTF-8\""), (name: "Set-Cookie", value: "a=1"),
            (name: "set-cookie", value: "b=2"), (name: "Content-Length", value: "42"),
        ])
        #expect(response.value(forHTTPHeaderField: "content-type") == "application/JSON; charset=\"UTF-8\"")
        #expect(response.value(forHTTPHeaderField: "SET-COOKIE") == "a=1, b=2")
        #expect(response.allHeaderFields["Set-Cookie"] as? String == "a=1, b=2", "under the name as first spelled")
        #expect(response.allHeaderFields.count == 3)
        #expect(response.mimeType == "application/json" && response.textEncodingName == "UTF-8")
        #expect(response.expectedContentLength == 42)
        #expect(response.value(forHTTPHeaderField: "Location") == nil)
    }

    @Test func applesInitializerTakesADictionaryOfFields() throws {
        let response = try #require(HTTPURLResponse(url: URL(string: "https://example.com/")!, statusCode: 404, httpVersion: "HTTP/1.1",
                                                    headerFields: ["content-type": "text/html"]))
        #expect(response.statusCode == 404 && response.mimeType == "text/html" && response.textEncodingName == nil)
        #expect(response.expectedContentLength == -1)
    }

    /// Apple's order: the Content-Disposition filename, the URL's last path component, its
    /// host, then "unknown".
    @Test func theSuggestedFilenameComesFromTheDispositionThenThePathThenTheHost() {
        func name(_ url: String, _ disposition: String? = nil) -> String? {
            HTTPURLResponse(url: URL(string: url), statusCode: 200,
                            headerFields: disposition.map { [(name: "Content-Disposition", value: $0)] } ?? []).suggestedFilename
        }
        #expect(name("https://example.com/files/report.pdf", "attachment; filename=\"Q3 report.pdf\"") == "Q3 report.pdf")
        #expect(name("https://example.com/files/report.pdf", "attachment; filename=\"../../etc/passwd\"") == "report.pdf",
                "a name with a path in it is not taken")
        #expect(name("https://example.com/files/report.pdf") == "report.pdf")
        #expect(name("https://example.com/") == "example.com")
        #expect(URLResponse(url: nil, expectedContentLength: -1).suggestedFilename == "unknown")
    }

    @Test func resumeDataRoundTripsAndAnythingElseIsNotResumeData() throws {
        let info = TransferTaskInfo(taskIdentifier: 3, id: UUID().uuidString, kind: "download", url: "https://example.com/a.zip", method: "GET",
                                    state: "cancelled", bytesReceived: 4096, resumable: true)
        let resumeData = try #require(TransferResumeData(info))
        #expect(TransferResumeData(resumeData.data) == resumeData)
        let plist = try #require(try PropertyListSerialization.propertyList(from: resumeData.data, format: nil) as? [String: Any])
        #expect(plist["NSURLSessionDownloadURL"] as? String == "https://example.com/a.zip", "Apple's key for the URL")
        #expect((plist["NSURLSessionResumeBytesReceived"] as? NSNumber)?.int64Value == 4096, "and for the bytes")

        var kept = info
        kept.resumable = false
        #expect(TransferResumeData(kept) == nil, "no resume data for bytes that were not kept")
        #expect(TransferResumeData(Data("garbage".utf8)) == nil)
        let forged = try PropertyListSerialization.data(fromPropertyList: ["AppexTransferTask": "../../etc", "NSURLSessionDownloadURL": "https://x/"],
                                                        format: .binary, options: 0)
        #expect(TransferResumeData(forged) == nil, "a task is named by a UUID, nothing else")
    }

    @Test func aFailedDownloadsErrorCarriesItsResumeData() throws {
        let info = TransferTaskInfo(taskIdentifier: 3, id: UUID().uuidString, kind: "download", url: "https://example.com/a.zip", method: "GET",
                                    state: "failed", bytesReceived: 10, error: "gave up", errorCode: URLError.networkConnectionLost.rawValue, resumable: true)
        let error = try #require(TransferErrors.completion(of: info) as? URLError)
        #expect(error.code == .networkConnectionLost)
        #expect(error.downloadTaskResumeData.flatMap { TransferResumeData($0) } == TransferResumeData(info))
        #expect((error as NSError).userInfo[NSURLSessionDownloadTaskResumeData] is Data)
        var lost = info
        lost.resumable = false
        #expect((TransferErrors.completion(of: lost) as? URLError)?.downloadTaskResumeData == nil)
    }
}
