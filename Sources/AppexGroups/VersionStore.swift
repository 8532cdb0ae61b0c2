import AppexCore
import AppexSystem
import Foundation
import Glibc

/// The versions kept of one item (``NSFileVersion``), in the `.appex-versions` folder of its
/// coordination root: a group's container for an item in it, so the app and its extensions
/// see the same versions, and the versions lie on the item's file system. An item in no
/// container keeps them in Appex's data folder.
///
/// Each item has a folder there, named by a digest of its path below the root, holding
/// `index.json` (the item's path and its versions, oldest first), each version's file, and
/// `lock`, whose first byte a change holds so that processes change the index one at a time.
/// Every member of a group can write its container, so what is read there is checked as a
/// hostile member could have planted it: through ``ConfinedFolder`` (no link is followed),
/// an index of at most 1 MiB, and names that are the store's own (docs/threat-model.md).
struct VersionStore {
    /// A kept version, as the index records it.
    struct Entry: Codable, Equatable, Sendable {
        /// The version's persistent identifier: a UUID, which names its file too.
        var id: String
        /// The version file's name: the identifier, and the item's extension if it had one.
        var file: String
        /// The item's name when the version was added.
        var name: String
        /// When the version's contents were last modified.
        var modified: Double
        /// The computer it was saved on.
        var computer: String
        var discardable: Bool
    }

    fileprivate struct Index: Codable {
        var path: [String]
        var versions: [Entry]
    }

    /// The largest index read: 1 MiB, some four thousand versions.
    static let maximumIndexSize = 1 << 20
    /// The store's folder in each root.
    static let folderName = ".appex-versions"

    let item: CoordinatedItem
    /// The item's folder in the store.
    let folder: ConfinedFolder

    /// The store of the item at `url`; with `creating`, its folders are made if need be. Nil,
    /// without `creating`, if nothing was ever kept for the item.
    static func open(_ url: URL, creating: Bool) throws -> VersionStore? {
        let item = CoordinatedItem.locate(url)
        guard let store = try storeFolder(of: item, creating: creating) else { return nil }
        defer { store.close() }
        guard let name = try folderName(of: item.components, in: store, free: creating) else { return nil }
        guard let folder = try Self.folder(name, in: store, creating: creating) else { return nil }
        return VersionStore(item: item, folder: folder)
    }

    /// Moves the versions of `old` to `new`, which it moved to: Apple's versions follow an
    /// item moved through file coordination. Nothing is done if `old` keeps none.
    static func move(from old: URL, to new: URL) throws {
        guard let kept = try open(old, creating: false) else { return }
        defer { kept.close() }
        let newItem = CoordinatedItem.locate(new)
        guard newItem.lockFile == kept.item.lockFile, let store = try storeFolder(of: newItem, creating: true) else {
            // Another root: each version is kept again there.
            guard let moved = try open(new, creating: true) else { return }
            defer { moved.close() }
            for entry in try kept.entries() {
                let file = try kept.open(entry)
                defer { file.close() }
                try file.copyContents(toNewFileAt: moved.procPath(entry.file))
                try moved.changeIndex { $0.append(entry) }
                try kept.remove(entry.id)
            }
            return
        }
        defer { store.close() }
        guard let oldName = try folderName(of: kept.item.components, in: store, free: false),
              let newName = try folderName(of: newItem.components, in: store, free: true) else { return }
        try kept.changeIndex(path: newItem.components) { _ in }
        try store.rename(oldName, to: newName)
    }

    /// The root's store folder.
    private static func storeFolder(of item: CoordinatedItem, creating: Bool) throws -> ConfinedFolder? {
        let rootPath = item.isInUserRoot ? AppexHome.current.dataDirectory.path : String(item.lockFile.dropLast(AppexHome.coordinationLockName.count + 1))
        let root = try ConfinedFolder(trusted: rootPath)
        defer { root.close() }
        return try folder(item.isInUserRoot ? "Versions" : folderName, in: root, creating: creating)
    }

    /// The folder `name` in `parent`, made if `creating`; nil if it isn't there and not made.
    private static func folder(_ name: String, in parent: ConfinedFolder, creating: Bool) throws(SystemError) -> ConfinedFolder? {
        do {
            return try parent.folder(name, creating: creating)
        } catch {
            if !creating, error.errno == ENOENT { return nil }
            throw error
        }
    }

    /// The name of the folder of the item at `components` in `store`: a digest of the path,
    /// whose index says whose it is; another path of the same digest takes the next name.
    /// With `free`, the first name that is the item's or no one's; without, the item's, or nil.
    private static func folderName(of components: [String], in store: ConfinedFolder, free: Bool) throws -> String? {
        for probe in 0..<8 {
            let name = key(of: components) + (probe == 0 ? "" : "-\(probe)")
            guard let folder = try? store.folder(name) else { return free ? name : nil }
            defer { folder.close() }
            let owner = try VersionStore(item: CoordinatedItem(lockFile: "", components: components), folder: folder).readIndex()?.path
            if owner == nil || owner == components { return owner == nil && !free ? nil : name }
        }
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the version store \(store.path) has eight items of one digest; remove it to start again"])
    }

    /// A stable name for a path below the root: its FNV-1a digest, in hexadecimal.
    private static func key(of components: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in components.joined(separator: "/").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(format: "%016llx", hash)
    }

    func close() { folder.close() }

    /// The versions kept, oldest first.
    func entries() throws -> [Entry] {
        try readIndex()?.versions ?? []
    }

    /// The version file's URL.
    func url(of entry: Entry) -> URL {
        URL(fileURLWithPath: folder.path + "/" + entry.file)
    }

    /// Keeps a version with the contents of `contents`: a copy (a reflink where the file
    /// system can make one), or the file itself moved in with `moving`.
    func add(contents: URL, name: String, moving: Bool) throws -> Entry {
        let id = UUID().uuidString
        let pathExtension = (name as NSString).pathExtension
        let file = pathExtension.isEmpty ? id : "\(id).\(pathExtension)"
        let source = try FileDescriptor.open(contents.path, flags: O_RDONLY)
        defer { source.close() }
        var status = stat()
        guard fstat(source.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: contents.path,
                NSLocalizedDescriptionKey: "a version's contents must be a regular file, and \(contents.path) is not; keep a folder's versions as an archive of it"])
        }
        var linkStatus = stat()
        let renamed = moving && lstat(contents.path, &linkStatus) == 0 && linkStatus.st_mode & S_IFMT == S_IFREG
            && renameat(AT_FDCWD, contents.path, folder.descriptor.rawValue, file) == 0
        if !renamed {
            // Copied: the file is elsewhere, on another file system, or to be left where it is.
            try source.copyContents(toNewFileAt: procPath(file))
            if moving { try? FileManager.default.removeItem(at: contents) }
        }
        // The folder temporaryDirectoryURLForNewVersionOfItem(at:) made for it, now empty, goes.
        let parent = contents.deletingLastPathComponent()
        if moving, parent.lastPathComponent.hasPrefix("tmp-"), parent.deletingLastPathComponent().path == folder.path {
            _ = unlinkat(folder.descriptor.rawValue, parent.lastPathComponent, AT_REMOVEDIR)
        }
        let entry = Entry(id: id, file: file, name: name, modified: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9,
                          computer: ProcessInfo.processInfo.hostName, discardable: false)
        do {
            try changeIndex { $0.append(entry) }
        } catch {
            folder.removeFile(file)
            throw error
        }
        return entry
    }

    /// Forgets the version `id` and removes its file; the entry it was, or nil if there was none.
    @discardableResult
    func remove(_ id: String) throws -> Entry? {
        var removed: Entry?
        try changeIndex { versions in
            removed = versions.first { $0.id == id }
            versions.removeAll { $0.id == id }
        }
        if let removed { folder.removeFile(removed.file) }
        return removed
    }

    /// Sets whether the version `id` may be discarded.
    func setDiscardable(_ id: String, _ discardable: Bool) throws {
        try changeIndex { versions in
            for index in versions.indices where versions[index].id == id { versions[index].discardable = discardable }
        }
    }

    /// Opens the version's file, refusing a link or anything but a regular file.
    func open(_ entry: Entry) throws -> FileDescriptor {
        try folder.openFile(entry.file)
    }

    /// A path through this folder's open descriptor, for the calls that take one; its last
    /// component is made with `O_EXCL`, so a link planted there is not followed.
    func procPath(_ name: String) -> String {
        "/proc/self/fd/\(folder.descriptor.rawValue)/\(name)"
    }

    // MARK: The index

    fileprivate func readIndex() throws -> Index? {
        guard let file = try Self.openIfThere("index.json", in: folder) else { return nil }
        defer { file.close() }
        let index = try JSONDecoder().decode(Index.self, from: try file.readContents(limit: Self.maximumIndexSize))
        guard index.versions.allSatisfy(Self.isValid) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: folder.path + "/index.json",
                NSLocalizedDescriptionKey: "the version index \(folder.path)/index.json names a file that isn't the store's own; remove the folder to start again"])
        }
        return index
    }

    private static func openIfThere(_ name: String, in folder: ConfinedFolder) throws(SystemError) -> FileDescriptor? {
        do {
            return try folder.openFile(name)
        } catch {
            if error.errno == ENOENT { return nil }
            throw error
        }
    }

    /// Whether an entry names a file of the store's own naming: its UUID and an extension.
    static func isValid(_ entry: Entry) -> Bool {
        UUID(uuidString: entry.id) != nil && (entry.file == entry.id || entry.file.hasPrefix(entry.id + "."))
            && !entry.file.contains("/") && entry.file.utf8.count <= 255 && entry.name.utf8.count <= 1024
    }

    /// Changes the index, holding the store's lock: read, changed by `change`, and written
    /// beside it and renamed into place.
    fileprivate func changeIndex(path: [String]? = nil, _ change: (inout [Entry]) -> Void) throws {
        let lock = try folder.openFile("lock", flags: O_RDWR | O_CREAT)
        defer { lock.close() }
        try lock.lockByte(at: 0, .exclusive)
        var index = try readIndex() ?? Index(path: item.components, versions: [])
        change(&index.versions)
        if let path { index.path = path }
        let data = try JSONEncoder().encode(index)
        guard data.count <= Self.maximumIndexSize else {
            throw CocoaError(.fileWriteOutOfSpace, userInfo: [NSLocalizedDescriptionKey: "the item keeps too many versions to record another; remove some with NSFileVersion.removeOtherVersionsOfItem(at:)"])
        }
        let unfinished = ".index.\(getpid()).unfinished"
        folder.removeFile(unfinished)
        let file = try folder.openFile(unfinished, flags: O_WRONLY | O_CREAT | O_EXCL)
        defer { file.close() }
        try file.write(data)
        try folder.rename(unfinished, to: "index.json")
    }
}
