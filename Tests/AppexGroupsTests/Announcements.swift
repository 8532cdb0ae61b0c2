import AppexGroups
import Foundation
import Synchronization

/// The changed keys of each `didChangeNotification` one `GroupDefaults` posts, in order.
final class Announcements: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [[String]] = []
    private let arrived = DispatchSemaphore(value: 0)
    private var observer: (any NSObjectProtocol)?

    init(of defaults: GroupDefaults) {
        observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: defaults, queue: nil) { [self] note in
            let keys = note.userInfo?[GroupDefaults.changedKeysKey] as? [String] ?? []
            lock.withLock { received.append(keys) }
            arrived.signal()
        }
    }

    /// The next announcement's keys, or nil if none comes within `seconds`.
    func next(within seconds: Int = 10) -> [String]? {
        guard arrived.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return lock.withLock { received.removeFirst() }
    }

    /// Stops listening.
    func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        observer = nil
    }
}
