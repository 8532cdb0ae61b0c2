import AppexLocking
import AppexSystem
import Foundation
import Glibc

/// The native messaging host's end of the browser's pipes: standard input read on a thread
/// of its own and cut into messages, and replies framed and written to standard output.
///
/// At most ``window`` messages are handled at once: the reading thread waits for one to be
/// done before it reads the next, so a browser that sends faster than the host answers is
/// held in its pipe, not in the host's memory.
public final class NativeMessageChannel: Sendable {
    private let input: Int32
    /// Standard output, which the channel writes for the life of the process.
    private let output: FileDescriptor
    private let writing = Locked(())
    private let credits: DispatchSemaphore
    /// How many messages may be handled at once.
    public let window: Int

    public init(input: Int32 = 0, output: Int32 = 1, window: Int = 64) {
        self.input = input
        self.output = FileDescriptor(owning: output)
        self.window = window
        credits = DispatchSemaphore(value: window)
    }

    /// The messages from the browser, until it closes the pipe. Call ``handled()`` once
    /// each has been handled.
    public func frames() -> AsyncStream<NativeMessageDecoder.Frame> {
        let (stream, continuation) = AsyncStream.makeStream(of: NativeMessageDecoder.Frame.self)
        let thread = Thread { [self] in
            var decoder = NativeMessageDecoder()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            reading: while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                decoder.append(buffer[..<count])
                while let frame = decoder.next() {
                    credits.wait()
                    if case .terminated = continuation.yield(frame) { break reading }
                }
            }
            continuation.finish()
        }
        thread.name = "native messages"
        thread.start()
        return stream
    }

    /// Returns the credit of a message that has been handled.
    public func handled() {
        credits.signal()
    }

    /// Writes one message to the browser. A browser that has gone is not an error: the
    /// host ends when its input does.
    public func write(_ message: [UInt8]) {
        let framed = NativeMessageDecoder.frame(message)
        writing.withLock { _ in _ = try? output.write(framed) }
    }
}
