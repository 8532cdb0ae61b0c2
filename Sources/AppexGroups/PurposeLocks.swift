import AppexCore
import AppexLocking
import AppexSystem
import Foundation

/// The byte locks that the coordinations of one purpose (``NSFileCoordinator/purposeIdentifier``)
/// hold in this process, as Apple's coordinations of one purpose never wait for each other.
///
/// They lock through one open of each lock file, shared by them all: the kernel never makes
/// an open file description wait for itself. Each byte is counted, per mode, for the
/// coordinations that hold it; the description holds it as strongly as the strongest of
/// them needs, and lets it go, or weakens it, when the last of those lets go. A coordination
/// of another purpose, in this process or another, conflicts with all of them as with one.
///
/// A byte being waited for (its `pending` count) is never weakened meanwhile: the waiter,
/// when it is granted, or gives up after a cancel, sets the byte to what the counts need.
final class PurposeLocks: Sendable {
    let purpose: String
    private let state = Locked(State())

    fileprivate struct Counts {
        var shared = 0
        var exclusive = 0
        var pending = 0

        /// The mode the counted coordinations need, if any.
        var needed: FileDescriptor.ByteLockMode? { exclusive > 0 ? .exclusive : shared > 0 ? .shared : nil }

        mutating func add(_ mode: FileDescriptor.ByteLockMode, _ count: Int) {
            if mode == .exclusive { exclusive += count } else { shared += count }
        }
    }

    fileprivate struct State {
        var descriptors: [String: FileDescriptor] = [:]
        var bytes: [CoordinationClaim.Key: Counts] = [:]
        var users = 0
    }

    /// The purposes in use in this process.
    private static let table = Locked<[String: PurposeLocks]>([:])

    private init(purpose: String) {
        self.purpose = purpose
    }

    /// The locks of `purpose`, made if need be; call ``leave()`` once done with them.
    static func join(_ purpose: String) -> PurposeLocks {
        table.withLock { table in
            let locks = table[purpose] ?? PurposeLocks(purpose: purpose)
            table[purpose] = locks
            locks.state.withLock { $0.users += 1 }
            return locks
        }
    }

    /// Ends a use that ``join(_:)`` began, having released what it took; after the last, the
    /// purpose's lock files are closed.
    func leave() {
        Self.table.withLock { table in
            let closing = state.withLock { state -> [FileDescriptor]? in
                state.users -= 1
                guard state.users == 0 else { return nil }
                defer { state.descriptors = [:] }
                return Array(state.descriptors.values)
            }
            guard let closing else { return }
            table[purpose] = nil
            for descriptor in closing { descriptor.close() }
        }
    }

    /// Takes `claim` for one coordination: at once if the purpose holds its byte as strongly
    /// already, else through the purpose's description, waiting, on a thread of its own, until
    /// `cancellation` ends the wait.
    func take(_ claim: CoordinationClaim, cancellation: CoordinationCancellation) throws {
        let key = claim.key
        let waiting = try state.withLock { state throws(SystemError) -> FileDescriptor? in
            if let needed = state.bytes[key]?.needed, needed >= claim.mode {
                state.bytes[key, default: Counts()].add(claim.mode, 1)
                return nil
            }
            let descriptor = try state.descriptor(for: key.lockFile)
            if try descriptor.tryLockByte(at: key.offset, claim.mode) {
                state.bytes[key, default: Counts()].add(claim.mode, 1)
                return nil
            }
            let duplicate = try descriptor.duplicate()
            state.bytes[key, default: Counts()].pending += 1
            return duplicate
        }
        guard let waiting else { return }
        try wait(for: claim, on: waiting, cancellation: cancellation)
    }

    /// Lets go of `claim` for one coordination, which took it with ``take(_:cancellation:)``.
    func release(_ claim: CoordinationClaim) {
        state.withLock { state in
            state.bytes[claim.key]?.add(claim.mode, -1)
            state.settle(claim.key, through: state.descriptors[claim.key.lockFile])
        }
    }

    /// What a wait came to: the waiting coordination and the thread that waits for it agree,
    /// under its lock, on whether the grant is counted for it.
    private enum Outcome {
        case waiting, granted, failed(SystemError), abandoned
    }

    /// Waits for `claim`'s byte through `duplicate`, a descriptor of the purpose's description,
    /// on a thread of its own, so that a cancel ends the wait at once. The thread counts the
    /// grant for the coordination unless it was abandoned, and in either case sets the byte
    /// to what the counts need.
    private func wait(for claim: CoordinationClaim, on duplicate: FileDescriptor, cancellation: CoordinationCancellation) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked(Outcome.waiting)
        let thread = Thread { [self] in
            var failure: SystemError?
            do throws(SystemError) {
                try duplicate.lockByte(at: claim.key.offset, claim.mode)
            } catch {
                failure = error
            }
            state.withLock { state in
                state.bytes[claim.key]?.pending -= 1
                let counted = outcome.withLock { outcome -> Bool in
                    guard case .waiting = outcome else { return false }
                    outcome = failure.map(Outcome.failed) ?? .granted
                    return failure == nil
                }
                if counted { state.bytes[claim.key, default: Counts()].add(claim.mode, 1) }
                state.settle(claim.key, through: duplicate)
            }
            duplicate.close()
            done.signal()
        }
        thread.name = "appex.coordination-wait"
        thread.start()
        do {
            try cancellation.wait(for: done)
        } catch {
            let granted = outcome.withLock { outcome -> Bool in
                if case .waiting = outcome { outcome = .abandoned }
                if case .granted = outcome { return true }
                return false
            }
            if granted { release(claim) }
            throw error
        }
        if case .failed(let error) = outcome.withLock({ $0 }) { throw error }
    }
}

extension PurposeLocks.State {
    /// The purpose's own open of a root's lock file; the user's is made if need be.
    fileprivate mutating func descriptor(for lockFile: String) throws(SystemError) -> FileDescriptor {
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

    /// Sets the byte to what its counts need, through `descriptor` (any of the description's),
    /// unless a wait for it is pending; forgets it once nothing holds or waits for it.
    fileprivate mutating func settle(_ key: CoordinationClaim.Key, through descriptor: FileDescriptor?) {
        guard let counts = bytes[key], counts.pending == 0 else { return }
        switch counts.needed {
        case nil:
            bytes[key] = nil
            try? descriptor?.unlockByte(at: key.offset)
        case .shared:
            // Converting this description's own lock never waits.
            _ = try? descriptor?.tryLockByte(at: key.offset, .shared)
        case .exclusive:
            break
        }
    }
}
