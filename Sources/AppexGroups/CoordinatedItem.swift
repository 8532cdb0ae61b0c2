import AppexCore
import Foundation

/// An item as file coordination sees it: the lock file of its coordination root, and its
/// path below that root, so that every process names it the same way.
///
/// A root is the nearest folder at or above the item that holds a lock file named
/// ``AppexCore/AppexHome/coordinationLockName``: every app's, extension's and app group's
/// container, since appexd makes it with one. An item in no container belongs to the
/// user's root, whose lock file is in the runtime folder.
struct CoordinatedItem: Sendable, Hashable {
    /// The root's lock file.
    var lockFile: String
    /// The item's path components below the root; empty for the root itself.
    var components: [String]

    /// Where `url` belongs, its path made standard (no `.`, `..` or repeated `/`).
    static func locate(_ url: URL) -> CoordinatedItem {
        let components = url.standardizedFileURL.path.split(separator: "/").map(String.init)
        for depth in stride(from: components.count, through: 0, by: -1) {
            let lock = "/" + (components[..<depth] + [AppexHome.coordinationLockName]).joined(separator: "/")
            if access(lock, F_OK) == 0 { return CoordinatedItem(lockFile: lock, components: Array(components[depth...])) }
        }
        return CoordinatedItem(lockFile: AppexHome.current.coordinationLockURL.path, components: components)
    }

    /// Whether the item is in no container, and so below the user's root, whose components
    /// are its whole path.
    var isInUserRoot: Bool { lockFile == AppexHome.current.coordinationLockURL.path }

    /// The item's URL, as this process sees its root.
    var url: URL {
        let root = isInUserRoot ? "" : String(lockFile.dropLast(AppexHome.coordinationLockName.count + 1))
        return URL(fileURLWithPath: root + "/" + components.joined(separator: "/"))
    }

    /// The folders that hold the item, below and including its root, outermost first.
    var ancestors: [CoordinatedItem] {
        components.indices.map { CoordinatedItem(lockFile: lockFile, components: Array(components[..<$0])) }
    }
}
