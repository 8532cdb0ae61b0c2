import AppexRegistry

/// How a command ends when it does not succeed: a one-line message for stderr and an exit status.
struct CommandFailure: Error {
    /// 1: the answer is no, or the input is invalid.
    static let no: Int32 = 1
    /// 2: a usage error, or the file system or database failed.
    static let trouble: Int32 = 2

    var status: Int32
    var message: String

    init(status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A registry error, with the status its code deserves.
    init(_ error: RegistryError) {
        let status = error.code == .storage ? Self.trouble : Self.no
        self.init(status: status, "error: \(error)")
    }

    /// Ends the command with a status and nothing more to say.
    static func silent(_ status: Int32) -> CommandFailure {
        CommandFailure(status: status, "")
    }
}
