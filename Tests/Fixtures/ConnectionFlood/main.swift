import AppexSystem
import AppexWire
import Foundation
import Glibc

// AppexConnectionFlood SOCKET COUNT SECONDS MARKER [DESCRIPTORS]
//
// Opens COUNT connections to SOCKET and never greets; touches MARKER once all are open; reads
// each until the peer closes it, for at most SECONDS after that; then prints, as JSON, how long that
// took and what each connection was told. Runs apart from the tests, so thousands of open
// descriptors never meet Foundation's Process.run there (it crashed reading /proc/self/fd).
//
// With DESCRIPTORS, each connection says Hello, as a real client does, and then, if DESCRIPTORS
// is more than 0, begins a frame that carries that many descriptors (copies of /dev/null) and
// never finishes it, so the reader holds them. With 0 it stays greeted and idle.

let arguments = CommandLine.arguments
guard arguments.count == 5 || arguments.count == 6, let count = Int(arguments[2]), let seconds = Double(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: AppexConnectionFlood SOCKET COUNT SECONDS MARKER [DESCRIPTORS]\n".utf8))
    exit(2)
}
let greeted = arguments.count == 6
let carried = greeted ? Int(arguments[5]) ?? 0 : 0
var limit = rlimit()
getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
limit.rlim_cur = min(limit.rlim_max, rlim_t(count + 64))
setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
guard limit.rlim_cur >= rlim_t(count + 64) else {
    FileHandle.standardError.write(Data("can't open \(count) sockets: the hard limit on open files is \(limit.rlim_max) (ulimit -Hn)\n".utf8))
    exit(3)
}

let hello = try WireMessage.hello(Hello(role: .host, name: "descriptor flood")).frameBytes()
// A whole frame announcing `carried` descriptors, of which only the header is sent.
let begun = Array(try WireMessage.ping(Call(1)).frameBytes(descriptorCount: carried).prefix(8))
let null = try FileDescriptor.open("/dev/null")
let started = ContinuousClock.now
let sockets = try (0..<count).map { _ in
    let socket = try UnixSocket.connect(to: arguments[1])
    // Greeted at once, as a real client does, so none is pushed out for waiting.
    if greeted { _ = try? hello.withUnsafeBytes { try UnixSocket.send(socket, $0) } }
    if carried > 0 { _ = try? begun.withUnsafeBytes { try UnixSocket.send(socket, $0, descriptors: Array(repeating: null, count: carried)) } }
    return socket
}
let opened = ContinuousClock.now - started
_ = FileManager.default.createFile(atPath: arguments[4], contents: nil)

var polled = sockets.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
var received = [[UInt8]](repeating: [], count: count)
var open = count
// From when all are open: on a loaded machine, opening them may take much of the time.
let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
var buffer = [UInt8](repeating: 0, count: 4096)
while open > 0, ContinuousClock.now < deadline {
    guard poll(&polled, nfds_t(polled.count), 200) > 0 else { continue }
    for index in polled.indices where polled[index].revents != 0 {
        let read = Glibc.read(polled[index].fd, &buffer, buffer.count)
        if read > 0 {
            received[index] += buffer[0..<read]
        } else {
            polled[index].fd = -1
            open -= 1
        }
    }
}
let answered = ContinuousClock.now - started

/// What each closed connection was told: the message of its one `Failure`, with its code.
var told: [String: Int] = [:]
for index in received.indices where polled[index].fd == -1 {
    var decoder = FrameDecoder()
    decoder.receive(received[index])
    var messages: [WireMessage] = []
    while let frame = try? decoder.nextFrame(), let message = try? WireMessage(frame) { messages.append(message) }
    // A greeted connection was welcomed first.
    if greeted, case .welcome? = messages.first { messages.removeFirst() }
    let key: String
    if messages.count == 1, case .failure(let failure) = messages[0] {
        key = "\(failure.error.code): \(failure.error.message)"
    } else {
        key = "not one Failure: \(messages.map(\.name))"
    }
    told[key, default: 0] += 1
}
func inSeconds(_ duration: Duration) -> Double { Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
let report: [String: Any] = ["openedSeconds": inSeconds(opened), "answeredSeconds": inSeconds(answered), "stillOpen": open, "told": told]
print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
