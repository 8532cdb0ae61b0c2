extension Duration {
    /// The duration in milliseconds, with its fraction, as the CLI reports timings.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
