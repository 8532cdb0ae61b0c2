import AppexLocking
public import Foundation

/// App group containers: which this process may have, and where they are.
///
/// appexd decides, from the entitlements of the bundle this process runs, which it finds
/// from the kernel rather than from anything the process says: an extension asks on the
/// control channel of the process appexd launched, an app on a connection whose peer
/// executable appexd matches to an installed app. A container is made on first use.
/// Answers are kept for the life of the process.
public enum ApplicationGroups {
    private static let found = Locked<[String: URL]>([:])

    /// The container of `group`, made if need be, or why this process may not have it.
    public static func container(for group: String) -> Result<URL, GroupAccessError> {
        if let known = found.withLock({ $0[group] }) { return .success(known) }
        let answer = DaemonGroupLookUp.containerURL(for: group)
        if case .success(let url) = answer { found.withLock { $0[group] = url } }
        return answer
    }
}

/// Why a process may not have an app group's container.
public struct GroupAccessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The group asked for.
    public var group: String
    /// What appexd said, or why it could not be asked.
    public var reason: String

    public init(group: String, reason: String) {
        self.group = group
        self.reason = reason
    }

    public var description: String { "no container for app group \(group): \(reason)" }
}
