/// How a ``Connection`` waits for what its peer sends.
public enum ConnectionReading: Sendable {
    /// A thread of the connection's own, blocked in the kernel until bytes come, which then
    /// runs the handler itself: the fewest wake-ups per message, for a process's few
    /// connections (a host's to appexd, an extension's to its host).
    case ownThread
    /// The process's event loop (`EventLoop`): its epoll thread sees the socket become
    /// readable or hung up, and a worker reads it and runs the handler, in order for each
    /// connection. An idle connection holds no thread and no read buffer, for a server's
    /// many connections (appexd's clients and its extensions' control channels).
    case eventLoop
}
