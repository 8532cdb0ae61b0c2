import CAppexSystem
import Glibc

/// Who is on the other end of a Unix socket, as the kernel recorded it when the peer
/// connected. Never the peer's own word.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The peer's process id at connect time.
    public var processID: Int32
    /// The peer's effective user id.
    public var userID: UInt32
    /// The peer's effective group id.
    public var groupID: UInt32

    public init(processID: Int32, userID: UInt32, groupID: UInt32) {
        self.processID = processID
        self.userID = userID
        self.groupID = groupID
    }

    /// The credentials of the peer of `socket` (SO_PEERCRED).
    public init(of socket: FileDescriptor) throws(SystemError) {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        _ = try retrying("getsockopt", subject: "SO_PEERCRED") { appex_peer_credentials(socket.rawValue, &pid, &uid, &gid) }
        self.init(processID: pid, userID: uid, groupID: gid)
    }

    /// The path of the peer's executable, from `/proc/PID/exe`, if it is still readable.
    /// The pid may have been reused since the peer connected; where that matters, use
    /// ``ProcessDescriptor/executablePath`` on `ProcessDescriptor(peerOf:)`.
    public var executablePath: String? {
        ProcessTree.executablePath(of: processID)
    }

    /// This process's own credentials.
    public static var current: PeerCredentials {
        PeerCredentials(processID: getpid(), userID: geteuid(), groupID: getegid())
    }

    public var description: String { "pid \(processID), uid \(userID)" }
}
