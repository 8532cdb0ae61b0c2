import AppexSystem
import Glibc

/// A version of an executable: its file and when it was last changed, so a file rewritten
/// in place is inspected again.
struct ExecutableVersion: Hashable, Sendable {
    var identity: FileIdentity
    var size: Int
    var changed: Int

    init(_ file: FileDescriptor) throws(SystemError) {
        var status = stat()
        guard fstat(file.rawValue, &status) == 0 else { throw SystemError("fstat") }
        identity = FileIdentity(status)
        size = Int(status.st_size)
        changed = status.st_ctim.tv_sec * 1_000_000_000 + status.st_ctim.tv_nsec
    }
}
