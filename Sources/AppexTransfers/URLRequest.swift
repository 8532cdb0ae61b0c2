public import Foundation

/// A request for a background task, as Foundation's `URLRequest`: a URL, a method, header
/// fields and a timeout. Background tasks take their bodies from files, so it has none.
public struct URLRequest: Sendable, Hashable {
    public var url: URL?
    /// The HTTP method; `GET` by default.
    public var httpMethod: String? = "GET"
    /// The header fields, by name.
    public var allHTTPHeaderFields: [String: String]?
    /// The longest wait for the next byte, in seconds, when shorter than the session's.
    public var timeoutInterval: TimeInterval = 60

    public init(url: URL, timeoutInterval: TimeInterval = 60) {
        self.url = url
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
