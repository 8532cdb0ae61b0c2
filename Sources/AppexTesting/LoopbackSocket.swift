public import Glibc

/// A socket of this process bound to 127.0.0.1 on a free port, listening if it is TCP: what
/// a sandboxed process is let reach, or not, in tests of network access. Closed at the end
/// of its life, or by ``close()``, which also marks how long a test needs it.
public struct LoopbackSocket: ~Copyable {
    public let descriptor: Int32
    public let port: UInt16

    /// A TCP listener (`SOCK_STREAM`) or a UDP socket (`SOCK_DGRAM`).
    public init(type: __socket_type = SOCK_STREAM) {
        descriptor = socket(AF_INET, Int32(type.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let socket = descriptor
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        if type == SOCK_STREAM { _ = listen(socket, 4) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Closes it now.
    public consuming func close() {}

    deinit { Glibc.close(descriptor) }
}
