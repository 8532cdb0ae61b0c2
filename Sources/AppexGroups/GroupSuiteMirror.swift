import Foundation

/// Keeps Foundation's own suite named after an app group the same as the group's shared
/// defaults, in both directions, so that `UserDefaults(suiteName: "group.…")` reads and
/// writes what the app and its other extensions do (``FoundationGroupSuites``).
///
/// swift-corelibs-foundation keeps every `UserDefaults` of a suite in one table in memory,
/// which it writes to a file of its own only on `synchronize()` and never reads again. The
/// mirror works on that table through Foundation's own API: it fills it with the group's
/// values, takes what the process changed in it to the group (``push()``), and puts in it
/// what other processes changed in the group as each change is announced (``pull(_:)``).
/// All of it happens on one serial queue.
final class GroupSuiteMirror: @unchecked Sendable {
    let group: String
    private let shared: GroupDefaults
    private let queue: DispatchQueue
    /// The table's values as they were when last made the same as the group's.
    private var known: [String: Any] = [:]
    private var observer: (any NSObjectProtocol)?
    private var timer: (any DispatchSourceTimer)?
    /// Set by ``stop()``: what is still queued does nothing.
    private var isStopped = false

    /// How often the table is compared with what it was, to find what the process changed.
    static let interval = DispatchTimeInterval.milliseconds(250)

    /// Starts mirroring `shared`'s group: the table takes the group's values at once.
    init(_ shared: GroupDefaults) {
        group = shared.groupIdentifier
        self.shared = shared
        queue = DispatchQueue(label: "appex.group-suite.\(group)")
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        queue.sync { replaceTable(with: shared.dictionaryRepresentation()) }
        observer = NotificationCenter.default.addObserver(forName: UserDefaults.didChangeNotification, object: shared, queue: nil) { [weak self] note in
            let keys = note.userInfo?[GroupDefaults.changedKeysKey] as? [String] ?? []
            guard let mirror = self else { return }
            mirror.queue.async { mirror.pull(keys) }
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.push() }
        timer.resume()
        self.timer = timer
    }

    deinit {
        timer?.cancel()
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// Writes what the process changed in the table to the group now. It may be called on
    /// the mirror's own queue, as by code that observes the group's announcements there and
    /// completes its request.
    func flush() {
        onQueue { push() }
    }

    /// Writes what the process changed, and mirrors nothing more: a change the group
    /// announced meanwhile, still queued, is not put into the table, nor a later change of the
    /// table into the group.
    func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        onQueue {
            push()
            isStopped = true
            timer?.cancel()
        }
    }

    // MARK: On the queue

    /// Marks the mirror's queue, so that ``onQueue(_:)`` knows it is on it.
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Runs `body` on the queue, at once if this is the queue already.
    private func onQueue(_ body: () -> Void) {
        if DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) { body() } else { queue.sync(execute: body) }
    }

    /// The suite's table in Foundation: every `UserDefaults(suiteName:)` of the group shares it.
    private var table: UserDefaults { UserDefaults(suiteName: group)! }

    /// The values stored in the table, without registered defaults or arguments.
    private var tableValues: [String: Any] {
        (table.persistentDomain(forName: group) ?? [:]).compactMapValues(Self.unwrapped)
    }

    private func replaceTable(with values: [String: Any]) {
        let table = self.table
        for key in tableValues.keys where values[key] == nil { table.removeObject(forKey: key) }
        for (key, value) in values { table.set(value, forKey: key) }
        known = tableValues
    }

    /// Writes to the group, in one change, each key whose value in the table is not what
    /// it was when last made the same.
    private func push() {
        guard !isStopped else { return }
        let current = tableValues
        var changes: [String: Any?] = [:]
        for (key, value) in current where !Self.same(known[key], value) { changes[key] = .some(value) }
        for key in known.keys where current[key] == nil { changes[key] = .some(nil) }
        known = current
        shared.apply(changes)
    }

    /// Puts the group's values of `keys` in the table, after writing what the process
    /// changed meanwhile: of two changes to one key, the one written last stays.
    private func pull(_ keys: [String]) {
        guard !isStopped else { return }
        push()
        let table = self.table
        for key in keys {
            let value = shared.object(forKey: key)
            guard !Self.same(known[key], value) else { continue }
            if let value { table.set(value, forKey: key) } else { table.removeObject(forKey: key) }
        }
        known = tableValues
    }

    // MARK: Values

    /// Foundation's persistent domain hands each value out wrapped in an `Optional`.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }

    /// Whether two values are the same, a whole `Double` and the `Int` Foundation reads it
    /// back as among them.
    private static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a as Int, b as Double), let (b as Double, a as Int): Double(a) == b
        case let (a?, b?): PropertyListValues.equal(a, b)
        default: false
        }
    }
}
