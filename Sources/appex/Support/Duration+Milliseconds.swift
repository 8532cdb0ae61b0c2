import Foundation

extension Duration {
    /// The duration in milliseconds, with its fraction, as the CLI reports timings (AppexSystem's
    /// `milliseconds` is whole ones, as system calls take them).
    var fractionalMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// The duration in whole milliseconds, as policies are stated.
    var wholeMilliseconds: Int64 {
        Int64(fractionalMilliseconds.rounded())
    }

    /// "850 µs", "12.3 ms", "1.24 s": as the demo shows timings.
    var shortText: String {
        let milliseconds = fractionalMilliseconds
        if milliseconds >= 1000 { return String(format: "%.2f s", milliseconds / 1000) }
        return milliseconds >= 1 ? String(format: "%.1f ms", milliseconds) : String(format: "%.0f µs", milliseconds * 1000)
    }
}
