import Glibc

extension FileDescriptor {
    /// `POLLRDHUP`, which Glibc's header declares only under `_GNU_SOURCE`.
    private static let pollReadHangUp: Int16 = 0x2000

    /// Whether the peer of this socket has closed its end (or shut down its writing), as
    /// the kernel knows at once, whatever is still unread here.
    public var peerHasHungUp: Bool {
        var entry = pollfd(fd: rawValue, events: Self.pollReadHangUp, revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & (Self.pollReadHangUp | Int16(POLLHUP | POLLERR | POLLNVAL)) != 0
    }
}
