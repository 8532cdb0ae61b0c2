import AppexSystem
import Testing

@Suite struct UnixSocketTests {
    @Test func bytesCrossASocketPair() throws {
        let (left, right) = try UnixSocket.pair()
        try [UInt8]([1, 2, 3]).withUnsafeBytes { try UnixSocket.send(left, $0) }
        var buffer = [UInt8](repeating: 0, count: 8)
        var descriptors: [FileDescriptor] = []
        let count = try buffer.withUnsafeMutableBytes { try UnixSocket.receive(right, into: $0, descriptors: &descriptors) }
        #expect(Array(buffer.prefix(count)) == [1, 2, 3])
    }
}
