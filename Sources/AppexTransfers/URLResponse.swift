public import Foundation

/// The server's answer to a background task, as Foundation's `URLResponse`.
open class URLResponse: @unchecked Sendable {
    /// The URL that was answered.
    public let url: URL?
    /// The length of the body, as the answer stated it; -1 if it did not.
    public let expectedContentLength: Int64

    public init(url: URL?, expectedContentLength: Int64) {
        self.url = url
        self.expectedContentLength = expectedContentLength
    }
}

/// An HTTP server's answer, as Foundation's `HTTPURLResponse`: its status code. (appexd
/// does not keep the answer's header fields yet.)
open class HTTPURLResponse: URLResponse, @unchecked Sendable {
    public let statusCode: Int

    public init(url: URL?, statusCode: Int, expectedContentLength: Int64 = -1) {
        self.statusCode = statusCode
        super.init(url: url, expectedContentLength: expectedContentLength)
    }
}
