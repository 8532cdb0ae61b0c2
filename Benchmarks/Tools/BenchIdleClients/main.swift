import AppexSystem
import AppexWire
import Glibc

// BenchIdleClients SOCKET COUNT: opens COUNT connections to appexd at SOCKET, says Hello on
// each as a host does, waits until each has been welcomed, prints "ready", and then holds
// them, saying nothing, until its standard input closes. The IdleConnections benchmark runs
// a few of these, since appexd lets one process hold 128 connections at most.

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    StandardError.write(line: "usage: BenchIdleClients SOCKET COUNT")
    exit(2)
}
do {
    let hello = try WireMessage.hello(Hello(role: .host, name: "idle client")).frameBytes()
    let sockets = try (0..<count).map { _ in
        let socket = try UnixSocket.connect(to: arguments[1])
        _ = try hello.withUnsafeBytes { try UnixSocket.send(socket, $0) }
        return socket
    }
    // Each one's Welcome, so that appexd has read and answered every Hello before the
    // benchmark looks.
    var buffer = [UInt8](repeating: 0, count: 4096)
    for socket in sockets {
        var decoder = FrameDecoder()
        while true {
            let read = buffer.withUnsafeMutableBytes { Glibc.read(socket.rawValue, $0.baseAddress, $0.count) }
            guard read > 0 else { throw SystemError("read", subject: "appexd's Welcome: it closed a connection instead") }
            decoder.receive(buffer[0..<read])
            guard let frame = try decoder.nextFrame() else { continue }
            guard case .welcome = try WireMessage(frame) else { throw SystemError("read", subject: "appexd's answer to Hello: not a Welcome", errno: EBADMSG) }
            break
        }
    }
    _ = "ready\n".utf8CString.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count - 1) }
    while Glibc.read(0, &buffer, buffer.count) > 0 {}
    sockets.forEach { $0.close() }
} catch {
    StandardError.write(line: "BenchIdleClients: \(error)")
    exit(1)
}
