import CAppexSystem
import Glibc

/// Unix-domain stream sockets that carry file descriptors beside their bytes.
public enum UnixSocket {
    /// The most descriptors one send may carry.
    public static let maximumDescriptorsPerSend = Int(APPEX_MAX_FDS_PER_MESSAGE)

    /// A connected pair of sockets, both close-on-exec.
    public static func pair() throws(SystemError) -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        _ = try retrying("socketpair") { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) }
        return (FileDescriptor(owning: fds[0]), FileDescriptor(owning: fds[1]))
    }

    /// A socket listening at `path`, which must not exist yet.
    public static func listen(at path: String, backlog: Int32 = 128) throws(SystemError) -> FileDescriptor {
        let socket = try makeSocket()
        try withAddress(of: path, operation: "bind") { address, length throws(SystemError) in
            _ = try retrying("bind", subject: path) { bind(socket.rawValue, address, length) }
        }
        _ = try retrying("listen", subject: path) { Glibc.listen(socket.rawValue, backlog) }
        return socket
    }

    /// A socket connected to the listener at `path`.
    public static func connect(to path: String) throws(SystemError) -> FileDescriptor {
        let socket = try makeSocket()
        try withAddress(of: path, operation: "connect") { address, length throws(SystemError) in
            _ = try retrying("connect", subject: path) { Glibc.connect(socket.rawValue, address, length) }
        }
        return socket
    }

    /// The next connection on `listener`, close-on-exec; blocks until one arrives.
    public static func accept(_ listener: FileDescriptor) throws(SystemError) -> FileDescriptor {
        let raw = try retrying("accept") { appex_accept(listener.rawValue) }
        return FileDescriptor(owning: raw)
    }

    /// How long a send with descriptors waits for room among the user's descriptors in
    /// flight (below) before it fails with `ETOOMANYREFS`.
    public static let descriptorsInFlightWait: Duration = .seconds(5)

    /// Sends all of `bytes`, with `descriptors` attached to the first of them.
    /// The descriptors stay owned by the caller; the peer receives its own copies.
    ///
    /// The kernel refuses to attach descriptors while the sending user has more in flight
    /// (sent by any of its processes and not yet received) than the sender's open-file
    /// limit, unless the sender holds CAP_SYS_RESOURCE: a sandboxed extension's limit is
    /// 1,024, shared with every busy process of its user. Those drain as receivers read,
    /// so the send waits for room, up to ``descriptorsInFlightWait``.
    public static func send(_ socket: FileDescriptor, _ bytes: UnsafeRawBufferPointer, descriptors: [FileDescriptor] = []) throws(SystemError) {
        precondition(descriptors.count <= maximumDescriptorsPerSend, "at most \(maximumDescriptorsPerSend) descriptors per send")
        let raws = descriptors.map(\.rawValue)
        var offset = 0
        repeat {
            let attached = offset == 0 ? raws : []
            let sent = try attached.withUnsafeBufferPointer { fds throws(SystemError) in
                try waitingForRoomInFlight(descriptors: fds.count) {
                    appex_send_with_fds(socket.rawValue, bytes.baseAddress.map { $0 + offset }, bytes.count - offset,
                                        fds.baseAddress, Int32(fds.count))
                }
            }
            offset += sent
        } while offset < bytes.count
    }

    /// Calls `send` until it stops failing with `EINTR` or `ETOOMANYREFS`, the latter for at
    /// most ``descriptorsInFlightWait``, pausing 1 ms, 2, 4 … up to 50 ms between tries.
    private static func waitingForRoomInFlight(descriptors: Int, _ send: () -> Int) throws(SystemError) -> Int {
        // Read the clock only once the kernel refuses: every frame of every request comes here.
        var deadline: ContinuousClock.Instant?
        var pauseMicroseconds: UInt32 = 1000
        while true {
            let sent = send()
            if sent >= 0 { return sent }
            let error = errno
            if error == EINTR { continue }
            guard error == ETOOMANYREFS, descriptors > 0 else { throw SystemError("sendmsg", errno: error) }
            let now = ContinuousClock.now
            let giveUp = deadline ?? now + descriptorsInFlightWait
            deadline = giveUp
            guard now < giveUp else {
                throw SystemError("sendmsg", subject: "of \(descriptors) descriptors, refused for \(descriptorsInFlightWait): this user "
                                  + "has more descriptors in flight than this process's open-file limit (\(OpenFileLimit.current)) "
                                  + "lets it add to; a process of the user is not reading what it was sent", errno: ETOOMANYREFS)
            }
            usleep(pauseMicroseconds)
            pauseMicroseconds = min(pauseMicroseconds * 2, 50_000)
        }
    }

    /// Receives up to `buffer.count` bytes and the descriptors that came with them.
    /// Returns 0 at end of stream. Throws `EMSGSIZE` as a ``SystemError`` if the peer sent
    /// more descriptors than one receive may take (those were closed). Without `waiting`,
    /// a socket with nothing to read throws `EAGAIN` at once.
    public static func receive(_ socket: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer,
                               descriptors: inout [FileDescriptor], waiting: Bool = true) throws(SystemError) -> Int {
        var fdCount: Int32 = 0
        var truncated: Int32 = 0
        // Every read runs this, so the descriptor slots live on the stack, not the heap.
        let got = try withUnsafeTemporaryAllocation(of: Int32.self, capacity: maximumDescriptorsPerSend) { fds throws(SystemError) in
            let got = try retrying("recvmsg") {
                appex_receive_with_fds(socket.rawValue, buffer.baseAddress, buffer.count,
                                       fds.baseAddress, Int32(fds.count), &fdCount, &truncated, waiting ? 0 : 1)
            }
            descriptors += fds.prefix(Int(fdCount)).map { FileDescriptor(owning: $0) }
            return got
        }
        if truncated != 0 { throw SystemError("recvmsg", subject: "descriptors truncated", errno: EMSGSIZE) }
        return got
    }

    /// Waits until `socket` has something to read (or its peer went, or it was shut down),
    /// for at most `timeout`; false if the time ran out first, and then not before it ran out.
    public static func waitForInput(_ socket: FileDescriptor, timeout: Duration) throws(SystemError) -> Bool {
        var entry = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
        // poll waits whole milliseconds: rounded down, a frame's deadline would pass up to 1 ms early.
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int32(clamping: max(0, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
        return try retrying("poll") { poll(&entry, 1, milliseconds) } > 0
    }

    /// Shuts down both directions, waking any thread blocked reading the socket.
    public static func shutdown(_ socket: FileDescriptor) {
        _ = Glibc.shutdown(socket.rawValue, Int32(SHUT_RDWR))
    }

    /// Shuts down the reading side only: a read blocked on the socket returns end of stream,
    /// and sending still works.
    public static func shutdownReading(_ socket: FileDescriptor) {
        _ = Glibc.shutdown(socket.rawValue, Int32(SHUT_RD))
    }

    /// Makes a blocked send fail with EAGAIN after `seconds`, so a peer that stops reading
    /// can't stall the sender forever.
    public static func setSendTimeout(_ socket: FileDescriptor, seconds: Double) throws(SystemError) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = try retrying("setsockopt", subject: "SO_SNDTIMEO") {
            setsockopt(socket.rawValue, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    private static func makeSocket() throws(SystemError) -> FileDescriptor {
        let raw = try retrying("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        return FileDescriptor(owning: raw)
    }

    /// Calls `body` with a `sockaddr_un` for `path`. A path longer than `sun_path` is reached
    /// through its folder's descriptor (`/proc/self/fd/N/name`), which the kernel resolves.
    private static func withAddress(of path: String, operation: String,
                                    _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> Void) throws(SystemError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        var folder: FileDescriptor?
        var reachable = path
        if path.utf8.count >= capacity {
            let slash = path.lastIndex(of: "/") ?? path.startIndex
            let directory = String(path[..<slash])
            let folderPath = directory.isEmpty ? "/" : directory
            folder = FileDescriptor(owning: try retrying("open", subject: folderPath) { appex_open_path(folderPath) })
            reachable = "/proc/self/fd/\(folder!.rawValue)/" + path[path.index(after: slash)...]
            if reachable.utf8.count >= capacity { throw SystemError(operation, subject: path, errno: ENAMETOOLONG) }
        }
        defer { folder?.close() }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(reachable.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        try withUnsafePointer(to: &address) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                try body(address, length)
            }
        }
    }
}
