/// Something a parser did that it must never do, such as accepting bytes it then can't
/// encode again, or refusing with an error that points outside the input.
public struct InvariantViolation: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) { self.description = description }

    /// Throws when `condition` is false.
    static func require(_ condition: Bool, _ description: @autoclosure () -> String) throws(InvariantViolation) {
        if !condition { throw InvariantViolation(description()) }
    }
}
