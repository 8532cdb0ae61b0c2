import AppexLocking
import AppexSystem
import AppexTesting
import Foundation
import Glibc
import Testing

/// Unix stream sockets: pairs, listeners at short and long paths, shutdown and send timeouts.
@Suite struct UnixSocketTests {
    func send(_ socket: FileDescriptor, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try UnixSocket.send(socket, $0) }
    }

    func receive(_ socket: FileDescriptor) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 256)
        var descriptors: [FileDescriptor] = []
        let count = try buffer.withUnsafeMutableBytes { try UnixSocket.receive(socket, into: $0, descriptors: &descriptors) }
        return Array(buffer.prefix(count))
    }

    /// Listens at `path`, connects, accepts, and checks bytes cross both ways.
    func expectListenConnectAccept(at path: String) throws {
        let listener = try UnixSocket.listen(at: path)
        #expect(FileManager.default.fileExists(atPath: path))
        let client = try UnixSocket.connect(to: path)
        let server = try UnixSocket.accept(listener)
        #expect(fcntl(server.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(client.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        try send(client, [1, 2, 3])
        #expect(try receive(server) == [1, 2, 3])
        try send(server, [4])
        #expect(try receive(client) == [4])
    }

    @Test func bytesCrossASocketPair() throws {
        let (left, right) = try UnixSocket.pair()
        #expect(fcntl(left.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        try send(left, [1, 2, 3])
        #expect(try receive(right) == [1, 2, 3])
        try send(right, [])
        try send(right, [9])
        #expect(try receive(left) == [9])
    }

    @Test func listenConnectAndAccept() throws {
        let folder = try TemporaryDirectory()
        try expectListenConnectAccept(at: folder.url.appendingPathComponent("s.sock").path)
    }

    @Test func aPathLongerThanSunPathWorks() throws {
        let folder = try TemporaryDirectory()
        var directory = folder.url
        for index in 0..<6 { directory.appendPathComponent("a-rather-long-folder-name-\(index)") }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("appexd.sock").path
        #expect(path.utf8.count > 108, "longer than sockaddr_un.sun_path")
        try expectListenConnectAccept(at: path)
    }

    @Test func aNameTooLongEvenThroughTheFolderIsRefused() throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent(String(repeating: "n", count: 120)).path
        let error = #expect(throws: SystemError.self) { try UnixSocket.listen(at: path) }
        #expect(error?.errno == ENAMETOOLONG)
        #expect(error?.subject == path)
    }

    @Test func aLongPathInAMissingFolderSaysSo() {
        let path = "/nonexistent/" + String(repeating: "f", count: 100) + "/s.sock"
        let error = #expect(throws: SystemError.self) { try UnixSocket.connect(to: path) }
        #expect(error?.errno == ENOENT)
    }

    @Test func listeningWherePathExistsFails() throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("s.sock").path
        let first = try UnixSocket.listen(at: path)
        let error = #expect(throws: SystemError.self) { try UnixSocket.listen(at: path) }
        #expect(error?.errno == EADDRINUSE)
        #expect(error?.operation == "bind")
        first.close()
    }

    @Test func connectingToNothingFails() throws {
        let folder = try TemporaryDirectory()
        let path = folder.url.appendingPathComponent("s.sock").path
        #expect(throws: SystemError.self) { try UnixSocket.connect(to: path) }
        // A socket file whose listener has gone refuses connections.
        try UnixSocket.listen(at: path).close()
        let error = #expect(throws: SystemError.self) { try UnixSocket.connect(to: path) }
        #expect(error?.errno == ECONNREFUSED)
    }

    @Test func shutdownWakesABlockedReceive() throws {
        let (left, _) = try UnixSocket.pair()
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox()
        Thread {
            result.set(Result { try receive(left) })
            done.signal()
        }.start()
        UnixSocket.shutdown(left)
        done.wait()
        #expect(try result.get() == [], "a shut-down socket reads as the end of the stream")
    }

    @Test func aSendTimeoutEndsASendThePeerNeverReads() throws {
        let (left, right) = try UnixSocket.pair()
        defer { right.close() } // open, but never read
        try UnixSocket.setSendTimeout(left, seconds: 0.01)
        let big = [UInt8](repeating: 0, count: 32 << 20)
        let error = #expect(throws: SystemError.self) { try send(left, big) }
        #expect(error?.errno == EAGAIN)
    }

    /// A frame's deadline rests on this: when nothing came, the whole timeout has passed, not
    /// the whole milliseconds of it (a CI run saw a frame refused at 0.79999 s of 0.8).
    @Test(arguments: [Duration.microseconds(7_999), .microseconds(20_400), .milliseconds(3)])
    func waitingForInputThatNeverComesTakesTheWholeTimeout(timeout: Duration) throws {
        let (left, right) = try UnixSocket.pair()
        defer { right.close() }
        let began = ContinuousClock.now
        #expect(try !UnixSocket.waitForInput(left, timeout: timeout))
        let waited = ContinuousClock.now - began
        #expect(waited >= timeout, "gave up after \(waited) of \(timeout)")
        try send(right, [1])
        #expect(try UnixSocket.waitForInput(left, timeout: .zero), "what is there is seen at once")
    }
}

/// One result, handed from a thread to the test.
final class ResultBox: Sendable {
    private let result = Locked<Result<[UInt8], any Error>>(.success([0xFF]))
    func set(_ value: Result<[UInt8], any Error>) { result.withLock { $0 = value } }
    func get() throws -> [UInt8] { try result.withLock { $0 }.get() }
}
