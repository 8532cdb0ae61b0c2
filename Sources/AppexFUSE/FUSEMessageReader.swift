import CFUSEKernel

/// Reads a kernel message's parts in order: fixed structures, then names, then data.
///
/// The kernel is trusted to frame its messages, but a reader that checked nothing would turn
/// a short or garbled message (a kernel bug, a protocol version not understood) into a crash
/// of the whole mount; every read here is bounds-checked and fails with ``FUSEProtocolError``.
struct FUSEMessageReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The next structure of type `T`, as the kernel laid it out.
    mutating func take<T: BitwiseCopyable>(_ type: T.Type) throws(FUSEProtocolError) -> T {
        let size = MemoryLayout<T>.size
        guard bytes.count - offset >= size else { throw .truncated(expected: offset + size, got: bytes.count) }
        defer { offset += size }
        return bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
    }

    /// The next NUL-terminated name. A name that is not UTF-8 is refused: every name the
    /// layers above keep is a `String`, and a lossy one would name another file.
    mutating func takeName() throws(FUSEProtocolError) -> String {
        let rest = bytes[offset...]
        guard let end = rest.firstIndex(of: 0) else { throw .unterminatedName }
        defer { offset = end + 1 }
        guard let name = String(validating: UnsafeRawBufferPointer(rebasing: rest[..<end]), as: UTF8.self) else {
            throw .nameNotUTF8
        }
        return name
    }

    /// The next `count` bytes, copied out of the buffer the next message will be read into.
    mutating func takeBytes(_ count: Int) throws(FUSEProtocolError) -> [UInt8] {
        guard count >= 0, bytes.count - offset >= count else { throw .truncated(expected: offset + count, got: bytes.count) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
}

/// A kernel message that could not be read: answered with EIO (or dropped, for one that
/// expects no answer), and the mount goes on serving.
public enum FUSEProtocolError: Error, Equatable, CustomStringConvertible {
    case truncated(expected: Int, got: Int)
    case unterminatedName
    case nameNotUTF8
    case lengthMismatch(header: Int, read: Int)

    public var description: String {
        switch self {
        case let .truncated(expected, got): "a FUSE message of \(got) bytes where at least \(expected) were needed"
        case .unterminatedName: "a FUSE message whose name has no terminating NUL"
        case .nameNotUTF8: "a name that is not UTF-8"
        case let .lengthMismatch(header, read): "a FUSE message whose header says \(header) bytes, of \(read) read"
        }
    }
}
