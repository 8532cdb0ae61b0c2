import AppexLocking

/// A shared-mime-info database read the first time someone asks for it, then kept.
final class LazyMIMEInfo: Sendable {
    private let load: (@Sendable () -> SharedMIMEInfo?)?
    private let state: Locked<SharedMIMEInfo??>

    /// A database already read, or none.
    init(_ value: SharedMIMEInfo?) {
        load = nil
        state = Locked(.some(value))
    }

    /// A database `load` reads on first use.
    init(loading load: @escaping @Sendable () -> SharedMIMEInfo?) {
        self.load = load
        state = Locked(nil)
    }

    /// The database, read now if it hasn't been.
    var value: SharedMIMEInfo? {
        state.withLock { state in
            if let loaded = state { return loaded }
            let loaded = load?()
            state = .some(loaded)
            return loaded
        }
    }
}
