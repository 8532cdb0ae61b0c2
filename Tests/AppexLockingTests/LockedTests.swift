@testable import AppexLocking
import Foundation
import Testing

@Suite struct LockedTests {
    /// Four threads append to one array under heavy contention, so the lock keeps passing
    /// through the kernel's hand-over. Every append arrives, in each thread's order; under
    /// ThreadSanitizer (`Support/sanitize thread`), the run also reports no race, which it
    /// did with a bare `Mutex`.
    @Test func threadsTakingTurnsLoseNothing() {
        let appended = Locked<[Int]>([])
        let threads = 4, each = 10_000
        let finished = DispatchGroup()
        for thread in 0..<threads {
            finished.enter()
            Thread.detachNewThread {
                for step in 0..<each {
                    appended.withLock { $0.append(thread * each + step) }
                }
                finished.leave()
            }
        }
        finished.wait()
        let values = appended.withLock { $0 }
        #expect(values.count == threads * each)
        for thread in 0..<threads {
            let own = values.filter { $0 / each == thread }
            #expect(own == Array(thread * each..<(thread + 1) * each))
        }
    }

    @Test func aLockHeldElsewhereIsNotAvailableAndAFreeOneIs() {
        let counter = Locked(0)
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            counter.withLock { value in
                value = 1
                held.signal()
                release.wait()
            }
            released.signal()
        }
        held.wait()
        #expect(counter.withLockIfAvailable { $0 } == nil)
        release.signal()
        released.wait()
        #expect(counter.withLockIfAvailable { value -> Int in
            value += 1
            return value
        } == 2)
    }

    struct Refusal: Error {}

    @Test func anErrorThrownInsideLeavesTheChangeAndReleasesTheLock() {
        let value = Locked("a")
        #expect(throws: Refusal.self) {
            try value.withLock { (text) throws(Refusal) in
                text += "b"
                throw Refusal()
            }
        }
        #expect(value.withLockIfAvailable { $0 } == "ab")
    }

    /// ThreadSanitizer knows a lock by its identity: the same for every use of one lock, and
    /// different for two locks, even locks around nothing.
    @Test func eachLockHasItsOwnLastingIdentity() {
        final class Holder: Sendable {
            let first = Locked(())
            let second = Locked(())
        }
        let holder = Holder()
        #expect(holder.first.identity == holder.first.identity)
        #expect(holder.first.identity != holder.second.identity)
        let identity = holder.first.identity
        let seen = Locked<UnsafeRawPointer?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            seen.withLock { $0 = holder.first.identity }
            done.signal()
        }
        done.wait()
        #expect(seen.withLock { $0 } == identity)
    }
}
