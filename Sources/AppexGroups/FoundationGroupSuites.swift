import Foundation
import Synchronization

/// Foundation's `UserDefaults(suiteName: "group.…")`, as Apple's code writes it, made the
/// app group's shared defaults: the same values as ``GroupDefaults``, across processes.
///
/// On Apple's systems that is how an app and its extensions share settings. Foundation on
/// Linux keeps such a suite private to the process and writes it only on `synchronize()`.
/// For each group mirrored here, the suite instead starts with the group's values; what the
/// process changes in it reaches the group within a quarter of a second, and at once on
/// ``flush()``; and what another process changes in the group is in the suite as soon as
/// the change is announced. Changes are whole, and of two changes to a key the one written
/// last stays.
///
/// The extension runtime mirrors the groups an extension is entitled to before its
/// principal class is made, and flushes before each request ends and before it exits. An
/// app calls ``mirror(_:)`` once, first thing, with its groups.
///
/// Differences from Apple's systems that remain: `UserDefaults.didChangeNotification` is
/// not posted for a change made through Foundation's `UserDefaults` (Foundation on Linux
/// posts it for none), and a value a `register(defaults:)` gave stays private to the
/// process, as on Apple's.
public enum FoundationGroupSuites {
    private static let mirrors = Mutex<[String: GroupSuiteMirror]>([:])

    /// Mirrors each of `groups` this process is entitled to, and returns those it mirrors;
    /// the reason for each other one goes to standard error. A group already mirrored stays
    /// as it is.
    @discardableResult
    public static func mirror(_ groups: [String]) -> [String] {
        groups.filter { group in
            if mirrors.withLock({ $0[group] != nil }) { return true }
            guard let shared = GroupDefaults(suiteName: group) else { return false }
            mirror(shared)
            return true
        }
    }

    /// Mirrors the group of `shared`, for code that has opened it from its container
    /// (``GroupDefaults/init(suiteName:container:)``). A group already mirrored stays as it is.
    public static func mirror(_ shared: GroupDefaults) {
        guard mirrors.withLock({ $0[shared.groupIdentifier] == nil }) else { return }
        let mirror = GroupSuiteMirror(shared)
        mirrors.withLock { $0[shared.groupIdentifier] = $0[shared.groupIdentifier] ?? mirror }
    }

    /// Writes what the process changed to `group`, and stops mirroring it: Foundation's
    /// suite keeps its values, and is the process's own again.
    public static func stop(_ group: String) {
        mirrors.withLock { $0.removeValue(forKey: group) }?.stop()
    }

    /// Writes what this process changed in every mirrored suite to its group now.
    public static func flush() {
        for mirror in mirrors.withLock({ Array($0.values) }) { mirror.flush() }
    }
}
