import AppexRegistry

/// How a command ends when it does not succeed: a message for stderr and an exit status;
/// with `--json`, a JSON object of its code, message and hint on stdout instead.
struct CommandFailure: Error {
    /// 1: the answer is no, or the input is invalid.
    static let no: Int32 = 1
    /// 2: a usage error, or the file system or database failed.
    static let trouble: Int32 = 2

    var status: Int32
    /// The line for people, hint and all: "error: no app com.x is installed (…)".
    var message: String
    /// A name scripts can test: "not-installed", "usage"; by default what the status means.
    var code: String
    /// What went wrong, without the hint, for JSON.
    var summary: String
    /// What to do about it, when there is something to say.
    var hint: String?

    init(status: Int32, _ message: String) {
        self.status = status
        self.message = message
        code = Self.code(for: status)
        summary = message.hasPrefix("error: ") ? String(message.dropFirst(7)) : message
        hint = nil
    }

    /// A failure whose hint is said after the message: "no extension X is installed; `appex list` shows what is".
    init(status: Int32, _ summary: String, hint: String, code: String? = nil) {
        self.status = status
        self.summary = summary.hasPrefix("error: ") ? String(summary.dropFirst(7)) : summary
        self.hint = hint
        self.code = code ?? Self.code(for: status)
        message = "\(summary); \(hint)"
    }

    /// A registry error, with the status its code deserves.
    init(_ error: RegistryError) {
        status = error.code == .storage ? Self.trouble : Self.no
        message = "error: \(error)"
        code = error.code.description
        summary = error.message
        hint = error.hint
    }

    /// Ends the command with a status and nothing more to say.
    static func silent(_ status: Int32) -> CommandFailure {
        CommandFailure(status: status, "")
    }

    /// What an exit status means, as a code: 1 refused, 2 error, 3 interrupted.
    static func code(for status: Int32) -> String {
        switch status {
        case no: "refused"
        case trouble: "error"
        case 3: "interrupted"
        default: "failed"
        }
    }

    /// The JSON object `--json` prints: code, message and hint.
    struct Report: Encodable {
        var code: String
        var message: String
        var hint: String?
        var status: Int32
    }

    var report: Report {
        Report(code: code, message: summary, hint: hint, status: status)
    }
}
