public import Glibc
import Synchronization

/// An open file descriptor that this process owns, closed exactly once.
///
/// Descriptors that cross processes are owned values: whoever holds one either closes it,
/// lets it be closed when the last reference goes, or hands it on with ``take()``.
///
/// ```swift
/// let file = try FileDescriptor.open("/etc/hostname")
/// defer { file.close() }
/// ```
public final class FileDescriptor: Sendable, CustomStringConvertible {
    private let state: Atomic<Int32>

    /// Takes ownership of `rawValue`, which must be open and owned by nobody else.
    public init(owning rawValue: Int32) {
        precondition(rawValue >= 0, "FileDescriptor(owning:) needs an open descriptor, not \(rawValue)")
        state = Atomic(rawValue)
    }

    deinit {
        let rawValue = state.load(ordering: .relaxed)
        if rawValue >= 0 { _ = Glibc.close(rawValue) }
    }

    /// The descriptor's number, or -1 once closed or taken.
    public var rawValue: Int32 { state.load(ordering: .acquiring) }

    /// Whether the descriptor is still open and owned here.
    public var isOpen: Bool { rawValue >= 0 }

    /// Closes the descriptor now; later calls do nothing.
    public func close() {
        let rawValue = state.exchange(-1, ordering: .acquiringAndReleasing)
        if rawValue >= 0 { _ = Glibc.close(rawValue) }
    }

    /// Gives up ownership: the caller now owns the returned descriptor and must close it.
    public func take() -> Int32 {
        let rawValue = state.exchange(-1, ordering: .acquiringAndReleasing)
        precondition(rawValue >= 0, "FileDescriptor.take() on a descriptor already closed or taken")
        return rawValue
    }

    /// A new descriptor for the same open file, close-on-exec.
    public func duplicate() throws(SystemError) -> FileDescriptor {
        let raw = rawValue
        let copy = try retrying("dup") { fcntl(raw, F_DUPFD_CLOEXEC, 0) }
        return FileDescriptor(owning: copy)
    }

    /// Opens `path` close-on-exec.
    public static func open(_ path: String, flags: Int32 = O_RDONLY, mode: mode_t = 0o600) throws(SystemError) -> FileDescriptor {
        let raw = try retrying("open", subject: path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
        return FileDescriptor(owning: raw)
    }

    /// The size of the file, from fstat.
    public func size() throws(SystemError) -> Int {
        var status = stat()
        let raw = rawValue
        _ = try retrying("fstat") { fstat(raw, &status) }
        return Int(status.st_size)
    }

    /// Reads up to `count` bytes at `offset`, without moving the file position.
    public func read(upTo count: Int, at offset: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        var failure: SystemError?
        bytes.withUnsafeMutableBytes { buffer in
            do throws(SystemError) {
                got = try read(into: buffer, at: offset)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        bytes.removeLast(count - got)
        return bytes
    }

    /// Reads up to `buffer.count` bytes at `offset` into `buffer`, without moving the file
    /// position, and returns how many it read: 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SystemError) -> Int {
        let raw = rawValue
        return try retrying("pread") { pread(raw, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: some Collection<UInt8>) throws(SystemError) {
        let array = Array(bytes)
        var failure: SystemError?
        array.withUnsafeBytes { buffer in
            do throws(SystemError) {
                try write(buffer)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Writes all of `buffer`, however many writes that takes.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(SystemError) {
        let raw = rawValue
        var written = 0
        while written < buffer.count {
            let done = written
            written += try retrying("write") { Glibc.write(raw, buffer.baseAddress! + done, buffer.count - done) }
        }
    }

    /// A pipe, both ends close-on-exec.
    public static func pipe() throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw SystemError("pipe") }
        let pipe = (read: FileDescriptor(owning: ends[0]), write: FileDescriptor(owning: ends[1]))
        for end in ends where fcntl(end, F_SETFD, FD_CLOEXEC) != 0 { throw SystemError("fcntl") }
        return pipe
    }

    public var description: String { "fd \(rawValue)" }
}
