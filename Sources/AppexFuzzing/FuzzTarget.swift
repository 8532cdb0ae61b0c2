/// A parser that faces untrusted input, with what must hold for any bytes it is given.
///
/// libFuzzer drives each one through `Fuzz/` (see docs/fuzzing.md); the test suite runs the
/// same checks over every seed and every input that once failed, so a fixed crash stays fixed.
///
/// ```swift
/// try FuzzTarget.wire.check(Array(bytes))   // throws InvariantViolation, or traps on a bug
/// ```
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// NSPredicate activation rules: parsed, linted, and evaluated against sample items.
    case predicate
    /// Info.plist and entitlements files: decoded and read as a bundle's manifest.
    case plist
    /// `.strings` localization tables.
    case strings
    /// The wire's framing and message decoders, over a stream cut into reads.
    case wire
    /// The handshake that opens every channel, from both sides.
    case handshake
    /// A Today widget's messages to its host, its view description among them.
    case widget
    /// What a browser writes to the native messaging host: frames, and the messages in them.
    case nativeMessages = "native-messages"
    /// A web page's preprocessing results, as the browser sends them.
    case preprocessingResults = "preprocessing-results"

    /// Runs the parser over `input` and checks what must hold.
    ///
    /// - Throws: ``InvariantViolation`` when the parser accepted or refused the input in a
    ///   way it must not. A crash in the parser is a trap, as it would be in appexd.
    public func check(_ input: [UInt8]) throws(InvariantViolation) {
        switch self {
        case .predicate: try PredicateFuzzing.check(input)
        case .plist: try PropertyListFuzzing.check(input)
        case .strings: try StringsFuzzing.check(input)
        case .wire: try WireFuzzing.check(input)
        case .handshake: try HandshakeFuzzing.check(input)
        case .widget: try WidgetFuzzing.check(input)
        case .nativeMessages: try NativeMessagesFuzzing.check(input)
        case .preprocessingResults: try PreprocessingResultsFuzzing.check(input)
        }
    }
}
