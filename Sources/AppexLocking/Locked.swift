public import CAppexLocking
public import Synchronization

/// A value that threads take turns with: Swift's `Mutex`, which ThreadSanitizer also sees.
///
/// `Mutex` waits, when contended, inside the uninstrumented standard library, so
/// ThreadSanitizer misses the lock passing between threads and reports a race on whatever
/// the lock guards. `Locked` tells the sanitizer of each acquire and release; in other builds
/// that is two calls to empty functions. Use it wherever the project would use `Mutex`.
@frozen
public struct Locked<Value: ~Copyable>: ~Copyable {
    @usableFromInline
    let mutex: Mutex<Value>
    /// Names this lock to ThreadSanitizer by its address, which stays put while the lock is
    /// borrowed, as it is for every use. Never read or written: the mutex's own address would
    /// do, but taking it reads the whole mutex, the guarded value too, which the sanitizer
    /// would report as racing with the thread inside the lock.
    @usableFromInline
    let anchor = Atomic<Bool>(false)

    /// A lock around `value`.
    @inlinable
    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, the lock held, and returns what it returns.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let lock = identity
        return try mutex.withLock { (value) throws(E) -> sending Result in
            appex_lock_acquired(lock)
            defer { appex_lock_releasing(lock) }
            return try body(&value)
        }
    }

    /// Runs `body` with the value if the lock is free now; nil, without waiting, if not.
    @inlinable
    public borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        let lock = identity
        return try mutex.withLockIfAvailable { (value) throws(E) -> sending Result in
            appex_lock_acquired(lock)
            defer { appex_lock_releasing(lock) }
            return try body(&value)
        }
    }
}

extension Locked where Value: ~Copyable {
    /// What names this lock to ThreadSanitizer: its anchor's address.
    @inlinable
    var identity: UnsafeRawPointer {
        withUnsafePointer(to: anchor) { UnsafeRawPointer($0) }
    }
}

extension Locked: Sendable where Value: ~Copyable {}
