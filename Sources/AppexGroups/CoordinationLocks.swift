import AppexCore
import AppexSystem
import Foundation

/// The byte locks one coordination holds, through descriptors of its own, so that it
/// conflicts with every other coordination, in this process or another. The kernel drops
/// them when they are released or the process dies, so a crashed writer blocks nobody.
struct CoordinationLocks: Sendable {
    private var descriptors: [String: FileDescriptor] = [:]
    private var held: [CoordinationClaim.Key: FileDescriptor.ByteLockMode] = [:]

    /// Takes each of `claims` (in the order given, which ``CoordinationClaim/merged(_:)``
    /// makes the same everywhere) that is not already held as strongly, waiting for each.
    mutating func take(_ claims: [CoordinationClaim]) throws(SystemError) {
        for claim in claims {
            if let mode = held[claim.key], mode >= claim.mode { continue }
            try descriptor(for: claim.key.lockFile).lockByte(at: claim.key.offset, claim.mode)
            held[claim.key] = claim.mode
        }
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
