import AppexSystem
import Foundation
import NIOCore
import Testing

/// The false report Support/tsan-suppressions.c drops, made to happen every time rather than
/// once in many runs: should the entry stop matching (a NIO release that renames the
/// function), the run under `Support/sanitize thread` reports the race and fails.
@Suite(.enabled(if: Sanitizers.active == .thread, "only ThreadSanitizer makes the report"))
struct ThreadSanitizerSuppressionTests {
    /// What a download does: an event loop reads into a buffer, the transfer's task writes
    /// the chunk to its file on another thread and lets it go, and the event loop, finding
    /// the storage its own again, grows it in place for the next read.
    @Test func aBufferReadOnOneThreadThenGrownInPlaceOnAnotherIsNotReported() {
        let mailbox = Mailbox()
        var loops = ByteBufferAllocator().buffer(capacity: 16)
        loops.writeString("chunk")
        mailbox.put(loops)
        let task = Thread {
            // As the chunk is written to the file: its bytes read, and it let go.
            let chunk = mailbox.take()
            precondition(chunk?.getString(at: 0, length: 5) == "chunk")
        }
        task.start()
        // Only the reference count, which ThreadSanitizer can't see, orders the two threads
        // from here on.
        let before = loops.capacity
        while loops.modifyIfUniquelyOwned({ $0.reserveCapacity(1 << 20) }) == nil {}
        #expect(before < 1 << 20 && loops.capacity >= 1 << 20)
        #expect(mailbox.taken)
    }

    /// A buffer handed from one thread to another under a lock, which ThreadSanitizer sees.
    final class Mailbox: @unchecked Sendable {
        private let lock = NSLock()
        private var buffer: ByteBuffer?
        private var wasTaken = false

        var taken: Bool { lock.withLock { wasTaken } }

        func put(_ buffer: ByteBuffer) {
            lock.withLock { self.buffer = buffer }
        }

        func take() -> ByteBuffer? {
            lock.withLock {
                defer { buffer = nil; wasTaken = true }
                return buffer
            }
        }
    }
}
