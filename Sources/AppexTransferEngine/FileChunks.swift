import AppexSystem
import Glibc
import NIOCore

/// A file's bytes as a request body: read in chunks as the connection takes them, so an
/// upload of any size holds one chunk in memory.
///
/// Each iteration opens the file again and reads it from the start, as a redirect needs;
/// `progress` is told how far the current iteration has read.
struct FileChunks: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer

    /// The chunk size: 64 KiB, the most a loopback socket takes in one write here.
    public static let chunkSize = 64 * 1024

    public let path: String
    let progress: @Sendable (Int64) -> Void

    public init(path: String, progress: @escaping @Sendable (Int64) -> Void = { _ in }) {
        self.path = path
        self.progress = progress
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(path: path, progress: progress)
    }

    /// Reads the file a chunk at a time, opening it at the first `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        let path: String
        let progress: @Sendable (Int64) -> Void
        var file: AppexSystem.FileDescriptor?
        var offset: Int64 = 0
        let allocator = ByteBufferAllocator()

        public mutating func next() async throws -> ByteBuffer? {
            if file == nil {
                file = try AppexSystem.FileDescriptor.open(path)
            }
            guard let file else { return nil }
            var buffer = allocator.buffer(capacity: FileChunks.chunkSize)
            let offset = Int(offset)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: FileChunks.chunkSize) { bytes in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<FileChunks.chunkSize]), at: offset)
            }
            if count == 0 {
                file.close()
                self.file = nil
                return nil
            }
            self.offset += Int64(count)
            progress(self.offset)
            return buffer
        }
    }
}
