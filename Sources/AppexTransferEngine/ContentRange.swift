/// A `Content-Range` header field of a 206 answer: `bytes FIRST-LAST/LENGTH`, where the
/// length may be `*` (RFC 9110, 14.4).
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    /// The whole representation's length, if the server says.
    var length: Int64?

    init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] == "bytes" else { return nil }
        let rangeAndLength = parts[1].split(separator: "/", maxSplits: 1)
        let bounds = rangeAndLength.first?.split(separator: "-", maxSplits: 1) ?? []
        guard rangeAndLength.count == 2, bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else {
            return nil
        }
        self.first = first
        self.last = last
        if rangeAndLength[1] == "*" {
            length = nil
        } else if let length = Int64(rangeAndLength[1]), length > last {
            self.length = length
        } else {
            return nil
        }
    }
}
