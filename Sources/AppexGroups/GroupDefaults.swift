public import Foundation

/// `UserDefaults` shared by an app and its extensions: a suite stored in their app group's
/// container, which every process of the group reads and changes at once.
///
/// Apple's spelling, `UserDefaults(suiteName: "group.…")`, reaches this store too once the
/// group is mirrored (``FoundationGroupSuites``, which an extension's runtime does); this
/// class adds notifications of every change and ``update(forKey:_:)``. A `GroupDefaults` is
/// a `UserDefaults`, so it passes wherever one is expected, and every getter
/// (`string(forKey:)`, `integer(forKey:)`, …) works as there.
///
/// - A change is written at once, and is whole or absent for every reader: no
///   `synchronize()` is needed.
/// - Two processes that change the suite at once lose nothing. For a change that depends on
///   the current value, such as a counter, use ``update(forKey:_:)``, which reads and
///   writes in one step against every process.
/// - A change is announced with `UserDefaults.didChangeNotification` to every
///   `GroupDefaults` of the suite, with the changed keys in `userInfo` under
///   ``changedKeysKey``: on the changing thread for a change made in this process, and on an
///   internal thread, promptly, for one made by another process. Every `GroupDefaults` of a
///   suite in one process shares its values, so a change made here is seen here at once.
/// - `register(defaults:)` is a fallback for this object only: it never hides a value that
///   any process stored.
///
/// ```swift
/// let shared = GroupDefaults(suiteName: "group.com.example.notes")!
/// shared.set("Groceries", forKey: "lastNote")
/// shared.update(forKey: "notesShared") { ($0 as? Int ?? 0) + 1 }
/// ```
open class GroupDefaults: UserDefaults {
    /// The key of `didChangeNotification`'s `userInfo` that lists the changed keys.
    public static let changedKeysKey = "AppexChangedKeys"

    /// The app group, which is also the suite's name.
    public let groupIdentifier: String
    /// The file that holds the suite.
    public var fileURL: URL { file.url }

    private var file: DefaultsFile!
    private var listener: UUID?
    private let registrationLock = NSLock()
    private var registered: [String: Any] = [:]

    /// The shared defaults of the app group `suiteName`, or nil if this process is not
    /// entitled to the group (the reason goes to standard error), or if its container can't
    /// be written.
    public override convenience init?(suiteName: String?) {
        guard let suiteName else { return nil }
        switch ApplicationGroups.container(for: suiteName) {
        case .success(let container):
            self.init(suiteName: suiteName, container: container)
        case .failure(let error):
            RefusalLog.once(suiteName, "GroupDefaults(suiteName:) is nil: \(error)")
            return nil
        }
    }

    /// The suite `suiteName` stored in `container` (`Library/Preferences/SUITE.plist`), for
    /// code that has the container already, or nil if the folder can't be made.
    public init?(suiteName: String, container: URL) {
        groupIdentifier = suiteName
        super.init(suiteName: suiteName)
        do {
            file = try DefaultsFile.shared(container: container, name: suiteName)
        } catch {
            let folder = container.appendingPathComponent(DefaultsFile.suitesFolder)
            RefusalLog.once(suiteName, "GroupDefaults for \(suiteName) can't be opened in \(folder.path): \(error)")
            return nil
        }
        let announcer = Announcer(self)
        listener = file.addListener { keys in announcer.defaults?.announce(keys) }
    }

    deinit {
        if let listener { file?.removeListener(listener) }
    }

    // MARK: Reading

    open override func object(forKey defaultName: String) -> Any? {
        if let value = file.value(forKey: defaultName) { return value }
        return registrationLock.withLock { registered[defaultName] }
    }

    open override func dictionaryRepresentation() -> [String: Any] {
        let fallbacks = registrationLock.withLock { registered }
        return fallbacks.merging(file.snapshot) { $1 }
    }

    // MARK: Writing

    open override func set(_ value: Any?, forKey defaultName: String) {
        guard let value else { return removeObject(forKey: defaultName) }
        let stored = Self.storable(value, forKey: defaultName)
        change { $0[defaultName] = stored }
    }

    open override func set(_ url: URL?, forKey defaultName: String) {
        set(url?.path, forKey: defaultName)
    }

    open override func removeObject(forKey defaultName: String) {
        change { $0.removeValue(forKey: defaultName) }
    }

    /// Replaces the value of `key` with what `transform` makes of the current one, in one
    /// step against every process that shares the suite: no other change comes between the
    /// read and the write. `transform` gets nil for no value, and returns nil to remove it.
    /// Returns the new value.
    @discardableResult
    public func update(forKey key: String, _ transform: (Any?) -> Any?) -> Any? {
        var result: Any?
        change { values in
            let new = transform(values[key]).map { Self.storable($0, forKey: key) }
            values[key] = new
            result = new
        }
        return result
    }

    /// Sets or removes (nil) several keys in one change, seen whole by every process.
    func apply(_ changes: [String: Any?]) {
        guard !changes.isEmpty else { return }
        let stored = Dictionary(uniqueKeysWithValues: changes.map { key, value in (key, value.map { Self.storable($0, forKey: key) }) })
        change { values in
            for (key, value) in stored { values[key] = value }
        }
    }

    open override func register(defaults registrationDictionary: [String: Any]) {
        let values = registrationDictionary.mapValues(PropertyListValues.normalized)
        registrationLock.withLock { registered.merge(values) { $1 } }
    }

    /// Does nothing and returns true: every change is already written and visible.
    @discardableResult
    open override func synchronize() -> Bool { true }

    // MARK: Internals

    private func change(_ body: (inout [String: Any]) -> Void) {
        do {
            try file.update(body)
        } catch {
            // Storage failing (a full disk, a folder made read-only) is not the caller's
            // mistake and has no error to throw through UserDefaults' API: say it, keep going.
            RefusalLog.always("GroupDefaults \(groupIdentifier): the change could not be written to \(fileURL.path): \(error)")
        }
    }

    fileprivate func announce(_ keys: [String]) {
        NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: self,
                                        userInfo: [Self.changedKeysKey: keys])
    }

    /// `value` as it is stored, or a stop with the key named, as Foundation's `UserDefaults`
    /// stops for a value that is not a property-list type.
    private static func storable(_ value: Any, forKey key: String) -> Any {
        if let url = value as? URL { return url.path }
        guard PropertyListValues.isStorable(value) else {
            fatalError("GroupDefaults.set(_:forKey: \"\(key)\"): \(type(of: value)) is not a property-list type (string, number, boolean, date, data, or an array or dictionary of them)")
        }
        return PropertyListValues.normalized(value)
    }
}

/// Lets the file reach a `GroupDefaults` without keeping it alive.
private final class Announcer: @unchecked Sendable {
    weak var defaults: GroupDefaults?

    init(_ defaults: GroupDefaults) {
        self.defaults = defaults
    }
}
