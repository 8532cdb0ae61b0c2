import AppexSystem
import CAppexSystem
import Foundation
import Glibc
import Testing

/// Descriptors cross a Unix socket beside the bytes (SCM_RIGHTS), and every one that arrives
/// is either handed to the receiver or closed.
@Suite struct DescriptorPassingTests {
    /// Receives once into a large buffer: the bytes, and the descriptors that came with them.
    func receive(_ socket: FileDescriptor, capacity: Int = 65_536) throws -> (bytes: [UInt8], descriptors: [FileDescriptor]) {
        var buffer = [UInt8](repeating: 0, count: capacity)
        var descriptors: [FileDescriptor] = []
        let count = try buffer.withUnsafeMutableBytes { try UnixSocket.receive(socket, into: $0, descriptors: &descriptors) }
        return (Array(buffer.prefix(count)), descriptors)
    }

    func send(_ socket: FileDescriptor, _ text: String, descriptors: [FileDescriptor] = []) throws {
        try Array(text.utf8).withUnsafeBytes { try UnixSocket.send(socket, $0, descriptors: descriptors) }
    }

    /// Sends one byte with `descriptors` straight through sendmsg, bypassing the shim's limit
    /// of 64, as a hostile peer could.
    func sendUnchecked(_ socket: FileDescriptor, descriptors: [Int32]) -> Int {
        let headerSize = MemoryLayout<cmsghdr>.size
        let dataSize = descriptors.count * MemoryLayout<Int32>.size
        var control = [UInt8](repeating: 0, count: headerSize + (dataSize + 7) / 8 * 8)
        control.withUnsafeMutableBytes { raw in
            var header = cmsghdr()
            header.cmsg_len = headerSize + dataSize
            header.cmsg_level = SOL_SOCKET
            header.cmsg_type = 1 // SCM_RIGHTS
            raw.storeBytes(of: header, as: cmsghdr.self)
            descriptors.withUnsafeBytes { raw.baseAddress!.advanced(by: headerSize).copyMemory(from: $0.baseAddress!, byteCount: dataSize) }
        }
        var byte: UInt8 = 0x2A
        return withUnsafeMutablePointer(to: &byte) { bytePointer in
            var vector = iovec(iov_base: bytePointer, iov_len: 1)
            return control.withUnsafeMutableBytes { controlBytes in
                withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    return sendmsg(socket.rawValue, &message, 0)
                }
            }
        }
    }

    @Test func aPipesWriteEndCrossesASocketPair() throws {
        let (left, right) = try UnixSocket.pair()
        let pipe = try makePipe()
        try send(left, "here", descriptors: [pipe.write])
        pipe.write.close()

        let (bytes, received) = try receive(right)
        #expect(bytes == Array("here".utf8))
        #expect(received.count == 1)
        #expect(received[0].rawValue != pipe.write.rawValue)
        #expect(fcntl(received[0].rawValue, F_GETFD) & FD_CLOEXEC != 0, "received close-on-exec")
        try received[0].write(Array("through the copy".utf8))
        received[0].close()
        #expect(try readText(pipe.read) == "through the copy", "end of file: the received copy was the last writer")
    }

    @Test func descriptorsComeWithTheFirstBytesOfALargeSend() throws {
        let (left, right) = try UnixSocket.pair()
        let pipe = try makePipe()
        let payload = [UInt8](repeating: 7, count: 1 << 20)
        // The socket holds far less than 1 MiB, so the send completes only while we read.
        let sender = Thread { try? payload.withUnsafeBytes { try UnixSocket.send(left, $0, descriptors: [pipe.write]) } }
        sender.start()
        var total = 0
        var perRead: [Int] = []
        while total < payload.count {
            let (bytes, received) = try receive(right)
            total += bytes.count
            perRead.append(received.count)
        }
        #expect(total == payload.count)
        #expect(perRead.first == 1)
        #expect(perRead.dropFirst().allSatisfy { $0 == 0 })
    }

    @Test func separateSendsDescriptorsAreNotMerged() throws {
        let (left, right) = try UnixSocket.pair()
        let first = try makePipe()
        let second = try makePipe()
        try send(left, "a", descriptors: [first.write])
        try send(left, "b", descriptors: [second.write])
        first.write.close()
        second.write.close()
        // A read stops after bytes that carried descriptors, so each send's arrive on their own.
        let one = try receive(right)
        let two = try receive(right)
        #expect(one.bytes == [0x61])
        #expect(two.bytes == [0x62])
        try #require(one.descriptors.count == 1 && two.descriptors.count == 1)
        try one.descriptors[0].write([1])
        try two.descriptors[0].write([2, 2])
        one.descriptors[0].close()
        two.descriptors[0].close()
        #expect(try readToEnd(first.read) == [1])
        #expect(try readToEnd(second.read) == [2, 2])
    }

    @Test func sixtyFourDescriptorsFitInOneSend() throws {
        let (left, right) = try UnixSocket.pair()
        let pipe = try makePipe()
        let copies = Array(repeating: pipe.write, count: UnixSocket.maximumDescriptorsPerSend)
        try send(left, "x", descriptors: copies)
        pipe.write.close()
        var (bytes, received) = try receive(right)
        #expect(bytes == [0x78])
        #expect(received.count == 64)
        #expect(Set(received.map(\.rawValue)).count == 64, "each arrives as its own descriptor")
        #expect(aWriterIsOpen(pipe.read))
        received.removeAll()
        #expect(everyWriterIsClosed(pipe.read))
    }

    @Test func descriptorsBeyondWhatOneReceiveTakesAreClosedAndReported() throws {
        let (left, right) = try UnixSocket.pair()
        let pipe = try makePipe()
        #expect(sendUnchecked(left, descriptors: Array(repeating: pipe.write.rawValue, count: 70)) == 1)
        pipe.write.close()

        var buffer = [UInt8](repeating: 0, count: 16)
        var received: [FileDescriptor] = []
        let error = #expect(throws: SystemError.self) {
            try buffer.withUnsafeMutableBytes { try UnixSocket.receive(right, into: $0, descriptors: &received) }
        }
        #expect(error?.errno == EMSGSIZE)
        #expect(received.count <= 64, "those that fit are handed over, to be closed by their owner")
        received.removeAll()
        #expect(everyWriterIsClosed(pipe.read), "the rest were closed, none leaked")
    }

    @Test func theShimClosesDescriptorsBeyondTheCallersCapacity() throws {
        let (left, right) = try UnixSocket.pair()
        let pipe = try makePipe()
        try send(left, "y", descriptors: Array(repeating: pipe.write, count: 5))
        pipe.write.close()

        var byte: UInt8 = 0
        var fds: [Int32] = [-1, -1]
        var count: Int32 = 0
        var truncated: Int32 = 0
        let got = appex_receive_with_fds(right.rawValue, &byte, 1, &fds, 2, &count, &truncated, 0)
        #expect(got == 1)
        #expect(count == 2)
        #expect(truncated == 1)
        let kept = fds.map { FileDescriptor(owning: $0) }
        #expect(aWriterIsOpen(pipe.read))
        kept.forEach { $0.close() }
        #expect(everyWriterIsClosed(pipe.read), "the three beyond capacity were closed by the shim")
    }

    @Test func theShimRefusesMoreThan64DescriptorsToSend() throws {
        let (left, _) = try UnixSocket.pair()
        let fds = [Int32](repeating: left.rawValue, count: 65)
        var byte: UInt8 = 0
        #expect(appex_send_with_fds(left.rawValue, &byte, 1, fds, 65) == -1)
        #expect(errno == EINVAL)
    }

    @Test func theEndOfTheStreamReadsAsZero() throws {
        let (left, right) = try UnixSocket.pair()
        try send(left, "last")
        left.close()
        #expect(try receive(right).bytes == Array("last".utf8))
        let end = try receive(right)
        #expect(end.bytes.isEmpty)
        #expect(end.descriptors.isEmpty)
    }
}
