import Glibc

/// The error a file-system operation answers with: the `errno` the caller's system call
/// returns, such as ENOENT for a name that isn't there.
public struct FUSEError: Error, Sendable, Equatable, CustomStringConvertible {
    public let errno: Int32

    public init(_ errno: Int32) {
        self.errno = errno
    }

    public static let notFound = FUSEError(ENOENT)
    public static let exists = FUSEError(EEXIST)
    public static let notDirectory = FUSEError(ENOTDIR)
    public static let isDirectory = FUSEError(EISDIR)
    public static let notEmpty = FUSEError(ENOTEMPTY)
    public static let invalid = FUSEError(EINVAL)
    public static let io = FUSEError(EIO)
    public static let badHandle = FUSEError(EBADF)
    public static let notSupported = FUSEError(ENOSYS)
    public static let timedOut = FUSEError(ETIMEDOUT)
    public static let nameTooLong = FUSEError(ENAMETOOLONG)
    public static let permission = FUSEError(EACCES)

    public var description: String { String(cString: strerror(errno)) }
}
