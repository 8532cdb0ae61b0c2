import AppexSystem
import Foundation
import Glibc

// AppexFakeDaemon SOCKET SECONDS MARKER
//
// Stands for another user's fake appexd: listens at SOCKET as whoever runs it (uid 65534, in
// the hostile-peer tests), touches MARKER once it listens, then takes one connection at a
// time and keeps whatever comes on it, until a client closes its connection or SECONDS pass.
// Prints, as JSON, the pid of each peer (from SO_PEERCRED) and how many bytes they sent. A
// client that checks who it talks to sends it nothing.

let arguments = CommandLine.arguments
guard arguments.count == 4, let seconds = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: AppexFakeDaemon SOCKET SECONDS MARKER\n".utf8))
    exit(2)
}
let listener = try UnixSocket.listen(at: arguments[1])
guard FileManager.default.createFile(atPath: arguments[3], contents: nil) else {
    FileHandle.standardError.write(Data("can't touch \(arguments[3])\n".utf8))
    exit(3)
}

let deadline = ContinuousClock.now + .seconds(seconds)
var peers: [Int32] = []
var received = 0
var buffer = [UInt8](repeating: 0, count: 4096)
waiting: while ContinuousClock.now < deadline, try UnixSocket.waitForInput(listener, timeout: deadline - ContinuousClock.now) {
    let connection = try UnixSocket.accept(listener)
    defer { connection.close() }
    peers.append(try PeerCredentials(of: connection).processID)
    while ContinuousClock.now < deadline, try UnixSocket.waitForInput(connection, timeout: deadline - ContinuousClock.now) {
        let count = read(connection.rawValue, &buffer, buffer.count)
        guard count > 0 else { break waiting }
        received += count
    }
}
let report: [String: Any] = ["peers": peers, "bytesReceived": received]
print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
