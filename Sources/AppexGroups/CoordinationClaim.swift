import AppexSystem

/// One byte lock that coordinated access to an item takes: a byte of its root's lock file,
/// found by hashing the path of the item and the role the byte plays for it.
///
/// Each item has three bytes. Its own byte is shared by its readers and held alone by a
/// writer. Anything done inside a folder also marks the folder: readers inside share its
/// `readersInside` byte, and writers inside its `writersInside` byte. So a writer of the
/// folder, which holds all three alone, waits for everything inside it and everything inside
/// waits for it; a reader of the folder holds `writersInside` alone, and so waits for writers
/// inside it but not for readers. Two readers of one folder wait for each other, which is
/// more than they need; readers of one file do not.
struct CoordinationClaim: Sendable, Hashable, Comparable {
    /// The lock file and byte: what two claims must agree on to conflict.
    struct Key: Sendable, Hashable, Comparable {
        var lockFile: String
        var offset: Int64

        static func < (left: Key, right: Key) -> Bool {
            (left.lockFile, left.offset) < (right.lockFile, right.offset)
        }
    }

    /// What the byte stands for.
    enum Role: UInt8 {
        case item = 1
        case readersInside = 2
        case writersInside = 3
    }

    var key: Key
    var mode: FileDescriptor.ByteLockMode

    static func < (left: CoordinationClaim, right: CoordinationClaim) -> Bool { left.key < right.key }

    /// The claims reading `item` takes; `isFolder` says whether it is a folder.
    static func reading(_ item: CoordinatedItem, isFolder: Bool) -> [CoordinationClaim] {
        item.ancestors.map { claim($0, .readersInside, .shared) }
            + [claim(item, .item, .shared)]
            + (isFolder ? [claim(item, .writersInside, .exclusive)] : [])
    }

    /// The claims writing `item` takes, whether it is a file or a folder.
    static func writing(_ item: CoordinatedItem) -> [CoordinationClaim] {
        item.ancestors.map { claim($0, .writersInside, .shared) }
            + [claim(item, .item, .exclusive), claim(item, .readersInside, .exclusive), claim(item, .writersInside, .exclusive)]
    }

    /// `claims` with one claim per byte, the strongest asked for, in the one order every
    /// process takes them in, so that no two coordinations can each wait for the other.
    static func merged(_ claims: [CoordinationClaim]) -> [CoordinationClaim] {
        var strongest: [Key: FileDescriptor.ByteLockMode] = [:]
        for claim in claims { strongest[claim.key] = max(strongest[claim.key] ?? .shared, claim.mode) }
        return strongest.map { CoordinationClaim(key: $0.key, mode: $0.value) }.sorted()
    }

    private static func claim(_ item: CoordinatedItem, _ role: Role, _ mode: FileDescriptor.ByteLockMode) -> CoordinationClaim {
        CoordinationClaim(key: Key(lockFile: item.lockFile, offset: offset(of: item.components, role)), mode: mode)
    }

    /// A 62-bit FNV-1a hash of the role and the path: a byte far inside the range a lock
    /// may cover, where two paths meet by chance about once in 10^18.
    private static func offset(of components: [String], _ role: Role) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        mix(role.rawValue)
        for component in components {
            mix(UInt8(ascii: "/"))
            for byte in component.utf8 { mix(byte) }
        }
        return Int64(bitPattern: hash >> 2)
    }
}
