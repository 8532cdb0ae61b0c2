import AppexSystem

/// The byte locks one coordination holds, taken through its purpose's ``PurposeLocks``, so
/// that it conflicts with every coordination of another purpose, in this process or another,
/// and with none of its own. The kernel drops them when they are released or the process
/// dies, so a crashed writer blocks nobody.
struct CoordinationLocks: Sendable {
    private let purpose: PurposeLocks
    private var held: [CoordinationClaim.Key: FileDescriptor.ByteLockMode] = [:]
    private var taken: [CoordinationClaim] = []

    /// Locks for a coordination of `purpose`; ``release()`` them, taken or not.
    init(purpose: String) {
        self.purpose = PurposeLocks.join(purpose)
    }

    /// Takes each of `claims` (in the order given, which ``CoordinationClaim/merged(_:)``
    /// makes the same everywhere) that is not already held as strongly, waiting for each
    /// until `cancellation` ends the wait.
    mutating func take(_ claims: [CoordinationClaim], cancellation: CoordinationCancellation) throws {
        for claim in claims {
            if let mode = held[claim.key], mode >= claim.mode { continue }
            try purpose.take(claim, cancellation: cancellation)
            held[claim.key] = claim.mode
            taken.append(claim)
        }
    }

    /// Lets go of every lock, and of the purpose.
    func release() {
        for claim in taken { purpose.release(claim) }
        purpose.leave()
    }
}
