/// Why a message from the browser can't be taken: what is wrong, and where in the message.
/// The host answers it as an error reply, with the message's `id` when it could be read,
/// and goes on reading.
public struct BrowserMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message's `id`, if it had a readable one.
    public var id: Int?
    public var description: String

    public init(id: Int? = nil, _ description: String) {
        self.id = id
        self.description = description
    }
}
