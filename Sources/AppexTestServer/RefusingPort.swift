public import Foundation
import Glibc

/// A port of 127.0.0.1 that refuses every connection for as long as it is held: a TCP socket
/// bound to it that never listens, so the kernel answers each connection with a reset.
///
/// A stopped ``LoopbackHTTPServer``'s port is not this: the kernel may hand that port to the
/// next server that asks for a free one, in this or another test, and a "server that is gone"
/// then answers. The held socket has no `SO_REUSEADDR`, so no other socket can be bound to
/// the port, nor can the kernel pick it, until ``close()``.
public final class RefusingPort: Sendable {
    /// The port, on 127.0.0.1.
    public let port: Int
    private let descriptor: Int32

    /// Takes a free port of 127.0.0.1 and holds it, refusing.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Self.error("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7f00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let error = Self.error("bind")
            Glibc.close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Lets the port go. Call it once, when the test is done with the port.
    public func close() {
        Glibc.close(descriptor)
    }

    /// `path` on this port, as an http URL.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    private static func error(_ call: String) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "\(call) for a refusing port: \(String(cString: strerror(errno)))"])
    }
}
