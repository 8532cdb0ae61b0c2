public import Foundation

/// A failed system call: which operation, on what, and the C error behind it.
///
/// The message reads as one line, such as
/// `connect /run/user/1000/appex/appexd.sock: No such file or directory (ENOENT)`.
public struct SystemError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The operation that failed, such as `connect` or `sendmsg`.
    public var operation: String
    /// What it was applied to, if anything: a path, a pid.
    public var subject: String?
    /// The C `errno` value.
    public var errno: Int32

    public init(_ operation: String, subject: String? = nil, errno: Int32 = Glibc.errno) {
        self.operation = operation
        self.subject = subject
        self.errno = errno
    }

    /// The C name of the error, such as `ENOENT`, when it is one of the common ones.
    public var errnoName: String? { Self.names[errno] }

    public var description: String {
        let reason = String(cString: strerror(errno))
        let name = errnoName.map { " (\($0))" } ?? " (errno \(errno))"
        return "\(operation)\(subject.map { " \($0)" } ?? ""): \(reason)\(name)"
    }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EINTR: "EINTR", EIO: "EIO", EBADF: "EBADF",
        ECHILD: "ECHILD", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EEXIST: "EEXIST",
        ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", EMFILE: "EMFILE", ENOSPC: "ENOSPC",
        EPIPE: "EPIPE", ENAMETOOLONG: "ENAMETOOLONG", ENOSYS: "ENOSYS", ECONNREFUSED: "ECONNREFUSED",
        ECONNRESET: "ECONNRESET", EADDRINUSE: "EADDRINUSE", ETIMEDOUT: "ETIMEDOUT", ENOEXEC: "ENOEXEC",
        ENOTCONN: "ENOTCONN", ENOPROTOOPT: "ENOPROTOOPT", ELOOP: "ELOOP", EXDEV: "EXDEV", ETOOMANYREFS: "ETOOMANYREFS",
    ]
}

/// Calls `body` until it stops failing with EINTR; throws a ``SystemError`` for other failures.
@inline(__always)
func retrying<T: BinaryInteger>(_ operation: String, subject: String? = nil, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        if errno != EINTR { throw SystemError(operation, subject: subject) }
    }
}
