import AppexLocking
import AppexSystem
import Foundation
import Glibc

/// One suite's values in a property list file that several processes share, such as an
/// app and its extensions in their group container. One object per file in each process,
/// shared by every `GroupDefaults` of that suite there.
///
/// - Every change is a read-modify-write of the whole file under an exclusive `flock` on a
///   lock file beside it, so two processes that change it at once lose nothing.
/// - The new file is written beside the old and renamed over it, so a reader never sees a
///   half-written file, and a writer killed midway leaves the old one whole (its unfinished
///   copy is removed by the next process that opens the suite).
/// - After the rename, still under the lock, the writer counts the change in the lock
///   file's first 8 bytes. Each process keeps the values in memory with the count it read
///   them at and the identity (inode) of the file it read, and reads the file again only
///   when either has moved: when inotify says the lock file was written or the file renamed
///   into place, or, where there is no inotify, at each read. So a read costs a dictionary
///   lookup. The identity catches a writer killed between its rename and its count, whose
///   values are on disk though the count never moved.
///
/// Not fsynced: a change survives the process, not a power cut in the next seconds.
final class DefaultsFile: @unchecked Sendable {
    typealias Listener = @Sendable ([String]) -> Void

    let url: URL
    /// The lock file, open for the object's life: `flock`ed for changes, and holding the count.
    private let lockFile: FileDescriptor
    private let lockPath: String
    /// Guards the values, the count and the listeners, and orders this process's reads of
    /// the file against its writes.
    private let lock = NSLock()
    private var values: [String: Any] = [:]
    private var generation: UInt64 = 0
    /// The file the values were read from or written to, or nil for none.
    private var identity: FileIdentity?
    private var listeners: [UUID: Listener] = [:]
    private var isWatched = false
    /// Whether another process's change reaches this one without looking: its folder is
    /// watched, and the watcher still runs.
    private var isNotified: Bool { isWatched && DirectoryWatcher.shared?.isRunning == true }

    private static let open = Locked<[String: WeakFile]>([:])

    /// The suite `name` in `folder`, made if need be: this process's object for it, unless
    /// its folder was removed or replaced since that object opened it.
    static func shared(folder: URL, name: String) throws -> DefaultsFile {
        let path = folder.appendingPathComponent("\(name).plist").standardizedFileURL.path
        return try open.withLock { open in
            if let file = open[path]?.file, file.isStillAtItsPath { return file }
            let file = try DefaultsFile(folder: folder, name: name)
            open[path] = WeakFile(file: file)
            return file
        }
    }

    private init(folder: URL, name: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        url = folder.appendingPathComponent("\(name).plist")
        lockPath = folder.appendingPathComponent(".\(name).plist.lock").path
        do {
            // Every process of the group may write here: what it planted at the lock's path, a
            // FIFO or a link, is refused rather than waited on or followed.
            lockFile = try FileDescriptor.open(lockPath, flags: O_RDWR | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        } catch {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: lockPath, NSUnderlyingErrorKey: error])
        }
        guard (try? lockFile.isRegularFile()) == true else {
            lockFile.close()
            RefusalLog.always("shared defaults' lock \(lockPath) is not a regular file; the suite can't be opened until it is removed")
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: lockPath])
        }
        try withFileLock {
            removeUnfinishedCopies()
            generation = readGeneration()
            (values, identity) = try loadSettingAsideIfCorrupt()
        }
        // The count moves after the rename, so a change of the count is the signal to read; a
        // rename whose count never came (its writer was killed) is the other.
        isWatched = [URL(fileURLWithPath: lockPath).lastPathComponent, url.lastPathComponent].allSatisfy { name in
            DirectoryWatcher.shared?.watch(folder, name: name) { [weak self] in self?.reloadIfChanged() } ?? false
        }
    }

    /// Whether the lock file this object holds is still the one at its path. It isn't once the
    /// suite's folder has been removed (an app group's container deleted, and perhaps made
    /// again), and a new opener must not be handed an object whose writes go nowhere.
    private var isStillAtItsPath: Bool {
        guard let held = try? lockFile.identity(), let there = FileIdentity(path: lockPath) else { return false }
        return held == there
    }

    /// Calls `listener` with the keys whose values change, whoever changed them: on the
    /// changing thread for a change made in this process, on the watcher's for another's.
    func addListener(_ listener: @escaping Listener) -> UUID {
        let id = UUID()
        lock.withLock { listeners[id] = listener }
        return id
    }

    func removeListener(_ id: UUID) {
        lock.withLock { _ = listeners.removeValue(forKey: id) }
    }

    /// The values as this process last saw them.
    var snapshot: [String: Any] {
        if !isNotified { reloadIfChanged() }
        return lock.withLock { values }
    }

    /// The value of `key`.
    func value(forKey key: String) -> Any? {
        if !isNotified { reloadIfChanged() }
        return lock.withLock { values[key] }
    }

    /// Changes the values as `body` says, atomically against every process, and tells the
    /// listeners which keys changed. `body` sees the latest values, whoever wrote them.
    func update(_ body: (inout [String: Any]) -> Void) throws {
        let (changed, listeners) = try lock.withLock {
            try withFileLock {
                let (old, oldIdentity) = try loadSettingAsideIfCorrupt()
                var new = old
                body(&new)
                let changed = Self.changedKeys(values, new)
                if Self.changedKeys(old, new).isEmpty {
                    // What was just read is current.
                    generation = readGeneration()
                    identity = oldIdentity
                } else {
                    identity = try write(new)
                    generation = readGeneration() + 1
                    writeGeneration(generation)
                }
                values = new
                return (changed, Array(self.listeners.values))
            }
        }
        if !changed.isEmpty { listeners.forEach { $0(changed) } }
    }

    /// Reads the file again if another process has changed it since, and tells the
    /// listeners what changed.
    private func reloadIfChanged() {
        let (changed, listeners) = lock.withLock { () -> ([String], [Listener]) in
            let current = readGeneration()
            guard current != generation || FileIdentity(path: url.path) != identity,
                  let (new, newIdentity) = try? Self.load(url)
            else { return ([], []) }
            let changed = Self.changedKeys(values, new)
            values = new
            generation = current
            identity = newIdentity
            return (changed, Array(self.listeners.values))
        }
        if !changed.isEmpty { listeners.forEach { $0(changed) } }
    }

    // MARK: The files

    private func readGeneration() -> UInt64 {
        var count: UInt64 = 0
        return pread(lockFile.rawValue, &count, 8, 0) == 8 ? count : 0
    }

    private func writeGeneration(_ count: UInt64) {
        var count = count
        _ = pwrite(lockFile.rawValue, &count, 8, 0)
    }

    /// The file's values, and the identity of the file they were read from: nil if there is
    /// no file.
    private static func load(_ url: URL) throws -> ([String: Any], FileIdentity?) {
        let damaged = CocoaError(.propertyListReadCorrupt, userInfo: [NSFilePathErrorKey: url.path])
        func unreadable(_ error: SystemError) -> CocoaError {
            let code: CocoaError.Code = error.errno == EACCES || error.errno == EPERM ? .fileReadNoPermission : .fileReadUnknown
            return CocoaError(code, userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        // Not waiting on a FIFO, nor following a link, that another process of the group
        // planted: each is set aside, as a damaged file is.
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(url.path, flags: O_RDONLY | O_NONBLOCK | O_NOFOLLOW)
        } catch where error.errno == ENOENT {
            return ([:], nil)
        } catch where error.errno == ELOOP {
            throw damaged
        } catch {
            throw unreadable(error)
        }
        defer { file.close() }
        guard (try? file.isRegularFile()) == true else { throw damaged }
        let data: Data
        let identity: FileIdentity
        do {
            identity = try file.identity()
            data = try file.readContents()
        } catch {
            throw unreadable(error)
        }
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else { throw damaged }
        return (plist.mapValues(PropertyListValues.normalized), identity)
    }

    /// The file's values. A file that is not a property list dictionary (written by
    /// something else), or not a file at all, is renamed to `NAME.plist.corrupt-TIME`, kept for whoever wants to
    /// look, and said on standard error; the suite starts again empty. Called under the file lock.
    private func loadSettingAsideIfCorrupt() throws -> ([String: Any], FileIdentity?) {
        do {
            return try Self.load(url)
        } catch let error as CocoaError where error.code == .propertyListReadCorrupt {
            let aside = url.appendingPathExtension("corrupt-\(Int(Date().timeIntervalSince1970))")
            guard rename(url.path, aside.path) == 0 else { throw error }
            RefusalLog.always("shared defaults \(url.path) were not a property list dictionary; kept as \(aside.lastPathComponent), and the suite starts empty")
            return ([:], nil)
        }
    }

    /// Writes `values` beside the file and renames the copy over it. Returns the new file's identity.
    private func write(_ values: [String: Any]) throws -> FileIdentity {
        let data = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
        let copy = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).unfinished")
        let identity: FileIdentity
        do {
            let descriptor = try FileDescriptor.open(copy.path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o600)
            defer { descriptor.close() }
            try descriptor.write(data)
            identity = try descriptor.identity()
        } catch {
            unlink(copy.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        guard rename(copy.path, url.path) == 0 else {
            let error = SystemError("rename", subject: url.path)
            unlink(copy.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        return identity
    }

    /// Removes copies that writers killed midway left. Called under the file lock, when no
    /// writer is midway.
    private func removeUnfinishedCopies() {
        let folder = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".unfinished") {
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    private func withFileLock<T>(_ body: () throws -> T) throws -> T {
        while flock(lockFile.rawValue, LOCK_EX) != 0 {
            guard errno == EINTR else { throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: url.path]) }
        }
        defer { flock(lockFile.rawValue, LOCK_UN) }
        return try body()
    }

    private static func changedKeys(_ old: [String: Any], _ new: [String: Any]) -> [String] {
        Set(old.keys).union(new.keys).filter { key in
            switch (old[key], new[key]) {
            case (nil, nil): false
            case (let a?, let b?): !PropertyListValues.equal(a, b)
            default: true
            }
        }.sorted()
    }

    deinit {
        lockFile.close()
    }
}

/// A weak reference to a suite's file, so the table of open files keeps none alive.
private struct WeakFile: @unchecked Sendable {
    weak var file: DefaultsFile?
}
