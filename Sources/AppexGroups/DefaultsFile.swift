import AppexCore
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
///   when either has moved. Each read compares the count (one `pread`), so a change that
///   another process finished before the read began is seen, whether or not its
///   announcement has arrived; inotify, which says when the lock file was written or the
///   file renamed into place, announces changes to a process that is not reading. The
///   identity catches a writer killed between its rename and its count, whose values are
///   on disk though the count never moved: the watcher compares it, or each read where
///   there is no inotify.
///
/// Every process of the group may write in the folder, and an extension among them is not
/// trusted by the app: every name in it is opened through the folder's descriptor, beneath
/// it and through no symbolic link, never waiting on a FIFO; the unfinished copy is made
/// new (`O_EXCL`), so a link planted at its name can't send the app's write elsewhere; and
/// the file is read only up to ``maximumSize``.
///
/// Not fsynced: a change survives the process, not a power cut in the next seconds.
final class DefaultsFile: @unchecked Sendable {
    typealias Listener = @Sendable ([String]) -> Void

    let url: URL
    /// The suite's folder, open for the object's life; every name below is in it.
    private let folder: ConfinedFolder
    /// The lock file, open for the object's life: `flock`ed for changes, and holding the count.
    private let lockFile: FileDescriptor
    private let lockName: String
    private var fileName: String { url.lastPathComponent }

    /// The largest suite file read or written: 16 MiB. Apple's UserDefaults is for small
    /// settings, and refuses 4 MB on tvOS; a larger file a member of the group planted is
    /// set aside unread, and a change that would make one is refused.
    static let maximumSize = 16 << 20
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

    /// The folder of a container's suites, below the container.
    static let suitesFolder = "Library/Preferences"

    /// The suite `name` in `container`'s ``suitesFolder``, made if need be: this process's
    /// object for it, unless its folder was removed or replaced since that object opened it.
    static func shared(container: URL, name: String) throws -> DefaultsFile {
        let path = container.appendingPathComponent(suitesFolder).appendingPathComponent("\(name).plist").standardizedFileURL.path
        return try open.withLock { open in
            if let file = open[path]?.file, file.isStillAtItsPath { return file }
            let file = try DefaultsFile(container: container, name: name)
            open[path] = WeakFile(file: file)
            return file
        }
    }

    private init(container: URL, name: String) throws {
        let path = container.appendingPathComponent(Self.suitesFolder)
        url = path.appendingPathComponent("\(name).plist")
        lockName = ".\(name).plist.lock"
        do {
            // The container is trusted (appexd named it); made again if it was removed.
            try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
            let root = try ConfinedFolder(trusted: container.path)
            defer { root.close() }
            folder = try root.folder(Self.suitesFolder, creating: true)
        } catch {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path.path, NSUnderlyingErrorKey: error])
        }
        do {
            // Every process of the group may write here: what it planted at the lock's path, a
            // FIFO or a link, is refused rather than waited on or followed.
            lockFile = try folder.openFile(lockName, flags: O_RDWR | O_CREAT)
        } catch {
            folder.close()
            let lockPath = path.appendingPathComponent(lockName).path
            if error.errno == EINVAL || error.errno == ELOOP || error.errno == EISDIR {
                RefusalLog.always("shared defaults' lock \(lockPath) is not a regular file; the suite can't be opened until it is removed")
            }
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: lockPath, NSUnderlyingErrorKey: error])
        }
        try withFileLock {
            removeUnfinishedCopies()
            generation = readGeneration()
            (values, identity) = try loadSettingAsideIfCorrupt()
        }
        // The count moves after the rename, so a change of the count is the signal to read; a
        // rename whose count never came (its writer was killed) is the other.
        isWatched = [lockName, fileName].allSatisfy { name in
            DirectoryWatcher.shared?.watch(path, name: name) { [weak self] in self?.reloadIfChanged() } ?? false
        }
    }

    /// Whether the lock file this object holds is still the one at its path. It isn't once the
    /// suite's folder has been removed (an app group's container deleted, and perhaps made
    /// again), and a new opener must not be handed an object whose writes go nowhere.
    private var isStillAtItsPath: Bool {
        guard let held = try? lockFile.identity(), let there = FileIdentity(path: url.deletingLastPathComponent().appendingPathComponent(lockName).path)
        else { return false }
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
        refresh()
        return lock.withLock { values }
    }

    /// The value of `key`.
    func value(forKey key: String) -> Any? {
        refresh()
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

    /// Brings the values up to date before a read. Where the folder is watched, the count
    /// alone is compared, as the watcher catches a rename whose count never came.
    private func refresh() {
        reloadIfChanged(comparingIdentity: !isNotified)
    }

    /// Reads the file again if another process has changed it since, and tells the
    /// listeners what changed. A change is known by its count, and also by the file's
    /// identity if `comparingIdentity`.
    private func reloadIfChanged(comparingIdentity: Bool = true) {
        let (changed, listeners) = lock.withLock { () -> ([String], [Listener]) in
            let current = readGeneration()
            guard current != generation || (comparingIdentity && folder.identity(of: fileName) != identity),
                  let (new, newIdentity) = try? load()
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
    private func load() throws -> ([String: Any], FileIdentity?) {
        let damaged = CocoaError(.propertyListReadCorrupt, userInfo: [NSFilePathErrorKey: url.path])
        // Not waiting on a FIFO, nor following a link, that another process of the group
        // planted: each is set aside, as a damaged file is; and one over the limit too.
        let data: Data
        let identity: FileIdentity
        do {
            let file = try folder.openFile(fileName)
            defer { file.close() }
            identity = try file.identity()
            data = try file.readContents(limit: Self.maximumSize)
        } catch {
            switch error.errno {
            case ENOENT: return ([:], nil)
            case ELOOP, EINVAL, EISDIR, EFBIG: throw damaged
            default:
                let code: CocoaError.Code = error.errno == EACCES || error.errno == EPERM ? .fileReadNoPermission : .fileReadUnknown
                throw CocoaError(code, userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
            }
        }
        guard (try? PropertyListValue.checkStructure(of: data)) != nil,
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else { throw damaged }
        return (plist.mapValues(PropertyListValues.normalized), identity)
    }

    /// The file's values. A file that is not a property list dictionary (written by
    /// something else), or not a file at all, is renamed to `NAME.plist.corrupt-TIME`, kept for whoever wants to
    /// look, and said on standard error; the suite starts again empty. Called under the file lock.
    private func loadSettingAsideIfCorrupt() throws -> ([String: Any], FileIdentity?) {
        do {
            return try load()
        } catch let error as CocoaError where error.code == .propertyListReadCorrupt {
            let aside = "\(fileName).corrupt-\(Int(Date().timeIntervalSince1970))"
            guard (try? folder.rename(fileName, to: aside)) != nil else { throw error }
            RefusalLog.always("shared defaults \(url.path) were not a property list dictionary; kept as \(aside), and the suite starts empty")
            return ([:], nil)
        }
    }

    /// Writes `values` beside the file and renames the copy over it. Returns the new file's identity.
    private func write(_ values: [String: Any]) throws -> FileIdentity {
        let data = try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0)
        guard data.count <= Self.maximumSize else {
            throw CocoaError(.fileWriteOutOfSpace, userInfo: [
                NSFilePathErrorKey: url.path,
                NSLocalizedDescriptionKey: "the suite would take \(data.count) bytes, over the \(Self.maximumSize) shared defaults may; keep large data in a file in the group container",
            ])
        }
        let copy = ".\(fileName).\(getpid()).unfinished"
        let identity: FileIdentity
        do {
            // Made new: whatever another process of the group planted at this name (a link to
            // a file of the user's, say) is removed, not written through.
            folder.removeFile(copy)
            let descriptor = try folder.openFile(copy, flags: O_WRONLY | O_CREAT | O_EXCL)
            defer { descriptor.close() }
            try descriptor.write(data)
            identity = try descriptor.identity()
            try folder.rename(copy, to: fileName)
        } catch {
            folder.removeFile(copy)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: error])
        }
        return identity
    }

    /// Removes copies that writers killed midway left. Called under the file lock, when no
    /// writer is midway.
    private func removeUnfinishedCopies() {
        let prefix = ".\(fileName)."
        for entry in (try? folder.entries()) ?? [] where entry.name.hasPrefix(prefix) && entry.name.hasSuffix(".unfinished") {
            folder.removeFile(entry.name)
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
        folder.close()
    }
}

/// A weak reference to a suite's file, so the table of open files keeps none alive.
private struct WeakFile: @unchecked Sendable {
    weak var file: DefaultsFile?
}
