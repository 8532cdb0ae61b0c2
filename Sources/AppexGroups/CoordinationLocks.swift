import AppexCore
import AppexLocking
import AppexSystem
import Foundation

/// The byte locks one coordination holds, through descriptors of its own, so that it
/// conflicts with every other coordination, in this process or another. The kernel drops
/// them when they are released or the process dies, so a crashed writer blocks nobody.
struct CoordinationLocks: Sendable {
    private var descriptors: [String: FileDescriptor] = [:]
    private var held: [CoordinationClaim.Key: FileDescriptor.ByteLockMode] = [:]

    /// Takes each of `claims` (in the order given, which ``CoordinationClaim/merged(_:)``
    /// makes the same everywhere) that is not already held as strongly, waiting for each
    /// until `cancellation` ends the wait.
    mutating func take(_ claims: [CoordinationClaim], cancellation: CoordinationCancellation) throws {
        for claim in claims {
            if let mode = held[claim.key], mode >= claim.mode { continue }
            let descriptor = try descriptor(for: claim.key.lockFile)
            if try !descriptor.tryLockByte(at: claim.key.offset, claim.mode) {
                try Self.wait(for: claim, on: descriptor, cancellation: cancellation)
            }
            held[claim.key] = claim.mode
        }
    }

    /// Waits for `claim`'s byte on a thread of its own, which locks it through a duplicate
    /// of `descriptor`: the same open file description, so the lock is this coordination's.
    /// A cancel ends the wait at once; the thread waits on, and when the lock comes, closes
    /// the duplicate, by then the description's last descriptor, which lets the lock go.
    private static func wait(for claim: CoordinationClaim, on descriptor: FileDescriptor,
                             cancellation: CoordinationCancellation) throws {
        let duplicate = try descriptor.duplicate()
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<SystemError?>(nil)
        let thread = Thread {
            do throws(SystemError) {
                try duplicate.lockByte(at: claim.key.offset, claim.mode)
            } catch {
                failure.withLock { $0 = error }
            }
            duplicate.close()
            done.signal()
        }
        thread.name = "appex.coordination-wait"
        thread.start()
        try cancellation.wait(for: done)
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Drops every lock.
    func release() {
        for descriptor in descriptors.values { descriptor.close() }
    }

    /// This coordination's own open of a root's lock file; the user's is made if need be.
    private mutating func descriptor(for lockFile: String) throws(SystemError) -> FileDescriptor {
        if let open = descriptors[lockFile] { return open }
        if lockFile == AppexHome.current.coordinationLockURL.path {
            try? AppexHome.current.prepareRuntimeDirectory()
        }
        let opened: FileDescriptor
        do {
            opened = FileDescriptor(owning: try AppexHome.openCoordinationLock(at: lockFile, flags: O_RDWR))
        } catch {
            throw SystemError("open", subject: lockFile, errno: error.code.rawValue)
        }
        descriptors[lockFile] = opened
        return opened
    }
}
