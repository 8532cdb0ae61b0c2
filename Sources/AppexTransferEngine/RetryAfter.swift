import Foundation

/// The wait a `Retry-After` header field asks for: delta-seconds, or an HTTP date
/// (RFC 9110, 10.2.3). Nil if the value is neither.
func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if let seconds = Int(trimmed), seconds >= 0 {
        return .seconds(seconds)
    }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: trimmed) else { return nil }
    return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
}
