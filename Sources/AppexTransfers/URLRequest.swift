public import Foundation

/// A request, as Foundation's `URLRequest`: a URL, a method, header fields, a body and a
/// timeout. A background task takes its body from a file, so it ignores ``httpBody``, as on
/// Apple's systems; a task of an in-process session (``URLSessionConfiguration/default``)
/// sends it.
public struct URLRequest: Sendable, Hashable {
    /// How a request may use what is cached, as Apple's `URLRequest.CachePolicy`.
    public enum CachePolicy: UInt, Sendable {
        case useProtocolCachePolicy = 0
        case reloadIgnoringLocalCacheData = 1
        case returnCacheDataElseLoad = 2
        case returnCacheDataDontLoad = 3
        case reloadIgnoringLocalAndRemoteCacheData = 4
        case reloadRevalidatingCacheData = 5

        /// Apple's older name for ``reloadIgnoringLocalCacheData``.
        public static var reloadIgnoringCacheData: CachePolicy { .reloadIgnoringLocalCacheData }
    }

    public var url: URL?
    /// The HTTP method; `GET` by default.
    public var httpMethod: String? = "GET"
    /// The header fields, by name.
    public var allHTTPHeaderFields: [String: String]?
    /// The longest wait for the next byte, in seconds, when shorter than the session's.
    public var timeoutInterval: TimeInterval = 60
    /// The body an in-process task sends; background tasks send a file instead.
    public var httpBody: Data?
    public var cachePolicy: CachePolicy = .useProtocolCachePolicy
    /// Whether the session's cookies go with the request and the answer's are kept.
    public var httpShouldHandleCookies = true

    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy, timeoutInterval: TimeInterval = 60) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.timeoutInterval = timeoutInterval
    }

    /// The value of header field `field`, found without regard to case.
    public func value(forHTTPHeaderField field: String) -> String? {
        allHTTPHeaderFields?.first { $0.key.caseInsensitiveCompare(field) == .orderedSame }?.value
    }

    /// Sets header field `field` to `value`, replacing it whatever its case; nil removes it.
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        var fields = allHTTPHeaderFields ?? [:]
        for name in fields.keys where name.caseInsensitiveCompare(field) == .orderedSame { fields[name] = nil }
        fields[field] = value
        allHTTPHeaderFields = fields
    }

    /// Adds `value` to header field `field`, after a comma if it has one already.
    public mutating func addValue(_ value: String, forHTTPHeaderField field: String) {
        setValue(self.value(forHTTPHeaderField: field).map { "\($0),\(value)" } ?? value, forHTTPHeaderField: field)
    }
}
