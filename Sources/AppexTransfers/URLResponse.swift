public import Foundation

/// The server's answer to a background task, as Foundation's `URLResponse`: its URL, the
/// length and type of its body.
open class URLResponse: @unchecked Sendable {
    /// The URL that was answered.
    public let url: URL?
    /// The length of the body, as the answer stated it; -1 if it did not.
    public let expectedContentLength: Int64
    /// The body's media type, lower-cased, without parameters (`text/html`); nil if unstated.
    public let mimeType: String?
    /// The body's character set, as the answer named it (`utf-8`); nil if unstated.
    public let textEncodingName: String?

    /// As Apple's `init(url:mimeType:expectedContentLength:textEncodingName:)`.
    public init(url: URL, mimeType: String?, expectedContentLength: Int, textEncodingName: String?) {
        self.url = url
        self.mimeType = mimeType
        self.expectedContentLength = Int64(expectedContentLength)
        self.textEncodingName = textEncodingName
    }

    public init(url: URL?, expectedContentLength: Int64, mimeType: String? = nil, textEncodingName: String? = nil) {
        self.url = url
        self.expectedContentLength = expectedContentLength
        self.mimeType = mimeType
        self.textEncodingName = textEncodingName
    }

    /// A name for the body's file, as Apple's systems choose it: the answer's
    /// `Content-Disposition` filename, else the URL's last path component, else its host,
    /// else "unknown". (Apple's also adds an extension for the media type, "in most cases";
    /// this doesn't.)
    open var suggestedFilename: String? {
        let last = url?.lastPathComponent ?? ""
        if !last.isEmpty, last != "/" { return last }
        if let host = url?.host, !host.isEmpty, !host.contains("/") { return host }
        return "unknown"
    }
}

/// An HTTP server's answer, as Foundation's `HTTPURLResponse`: its status code and header
/// fields.
open class HTTPURLResponse: URLResponse, @unchecked Sendable {
    public let statusCode: Int
    /// The answer's header fields, by name, as the answer spelled it; a name sent twice has
    /// its values joined with ", ".
    public let allHeaderFields: [AnyHashable: Any]
    private let fields: [(name: String, value: String)]

    /// As Apple's `init?(url:statusCode:httpVersion:headerFields:)`.
    public init?(url: URL, statusCode: Int, httpVersion: String?, headerFields: [String: String]?) {
        let fields = (headerFields ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        self.statusCode = statusCode
        self.fields = fields
        allHeaderFields = Self.joined(fields)
        let type = Self.contentType(fields)
        super.init(url: url, expectedContentLength: Self.contentLength(fields) ?? -1, mimeType: type.mime, textEncodingName: type.charset)
    }

    /// The answer to a background task, with its header fields in the order they came.
    public init(url: URL?, statusCode: Int, expectedContentLength: Int64 = -1, headerFields: [(name: String, value: String)] = []) {
        self.statusCode = statusCode
        fields = headerFields
        allHeaderFields = Self.joined(headerFields)
        let type = Self.contentType(headerFields)
        super.init(url: url, expectedContentLength: Self.contentLength(headerFields) ?? expectedContentLength,
                   mimeType: type.mime, textEncodingName: type.charset)
    }

    /// The value of header field `field`, found without regard to case; values of a name
    /// sent twice joined with ", ".
    open func value(forHTTPHeaderField field: String) -> String? {
        let values = fields.filter { $0.name.caseInsensitiveCompare(field) == .orderedSame }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    open override var suggestedFilename: String? {
        if let disposition = value(forHTTPHeaderField: "Content-Disposition"), let name = Self.parameter("filename", of: disposition),
           !name.isEmpty, !name.contains("/") {
            return name
        }
        return super.suggestedFilename
    }

    private static func joined(_ fields: [(name: String, value: String)]) -> [AnyHashable: Any] {
        var joined: [String: String] = [:]
        var names: [String: String] = [:]
        for (name, value) in fields {
            let spelled = names[name.lowercased(), default: name]
            names[name.lowercased()] = spelled
            joined[spelled] = joined[spelled].map { "\($0), \(value)" } ?? value
        }
        return joined
    }

    private static func contentLength(_ fields: [(name: String, value: String)]) -> Int64? {
        fields.first { $0.name.caseInsensitiveCompare("Content-Length") == .orderedSame }.flatMap { Int64($0.value.trimmingCharacters(in: .whitespaces)) }
    }

    private static func contentType(_ fields: [(name: String, value: String)]) -> (mime: String?, charset: String?) {
        guard let value = fields.first(where: { $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame })?.value else { return (nil, nil) }
        let mime = value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return (mime?.isEmpty == false ? mime : nil, parameter("charset", of: value))
    }

    /// The value of parameter `name` of a header field's value (`a; name="x"`), unquoted.
    private static func parameter(_ name: String, of value: String) -> String? {
        for part in value.split(separator: ";").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].caseInsensitiveCompare(name) == .orderedSame else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
