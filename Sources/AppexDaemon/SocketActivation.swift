import AppexSystem
import Foundation

/// systemd socket activation: the listening socket systemd passes as descriptor 3 when
/// `LISTEN_PID` is this process and `LISTEN_FDS` is 1 (see sd_listen_fds(3)).
enum SocketActivation {
    static func listeningSocketCount(_ environment: [String: String]) -> Int? {
        guard environment["LISTEN_PID"].flatMap(Int32.init) == getpid() else { return nil }
        return environment["LISTEN_FDS"].flatMap(Int.init)
    }

    /// The socket systemd passed, or nil when not socket-activated.
    static func listeningSocket() -> FileDescriptor? {
        let environment = ProcessInfo.processInfo.environment
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard listeningSocketCount(environment) == 1 else { return nil }
        _ = fcntl(3, F_SETFD, FD_CLOEXEC)
        return FileDescriptor(owning: 3)
    }
}
