extension Duration {
    /// The duration in milliseconds, with its fraction, as the CLI reports timings.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// The duration in whole milliseconds, as policies are stated.
    var wholeMilliseconds: Int64 {
        Int64(milliseconds.rounded())
    }
}
