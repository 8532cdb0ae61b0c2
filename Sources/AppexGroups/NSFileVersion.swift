public import Foundation
import AppexSystem
import Glibc

/// A snapshot of a file at a point in time, as Foundation's `NSFileVersion`: the current
/// version of an item, and the others kept of it (``VersionStore``), which an app adds
/// (``addOfItem(at:withContentsOf:options:)``), lists, restores and removes.
///
/// Versions are kept beside the item's app group, so the app and its extensions see the
/// same ones, and they follow the item when a coordinated move moves it
/// (``NSFileCoordinator/item(at:didMoveTo:)``). Presenters of the item hear of each version
/// added or removed, in this process and the group's others (`presentedItemDidGain(_:)`,
/// `presentedItemDidLose(_:)`). Nothing here syncs with other devices, so there are no
/// conflict versions, as for any local file on Apple's systems. Change versions within a
/// coordinated write of the item, as Apple asks.
open class NSFileVersion: NSObject, @unchecked Sendable {
    /// How ``addOfItem(at:withContentsOf:options:)`` takes the contents.
    public struct AddingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The contents' file is moved into the store, not copied.
        public static let byMoving = AddingOptions(rawValue: 1 << 0)
    }

    /// How ``replaceItem(at:options:)`` writes the item.
    public struct ReplacingOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The version's file is moved to the item, and the version is no longer kept.
        public static let byMoving = ReplacingOptions(rawValue: 1 << 0)
    }

    /// The file with this version's contents: the item itself for the current version, a
    /// file in the store for another.
    public let url: URL
    /// The item's name when the version was made.
    public let localizedName: String?
    /// The name of the computer the version was saved on.
    public let localizedNameOfSavingComputer: String?
    /// When the version's contents were last modified.
    public let modificationDate: Date?
    /// Whether this version is in conflict with the current one; never, as nothing here syncs.
    public let isConflict = false
    /// Whether the version's contents are on this computer; always.
    public let hasLocalContents = true
    /// Whether the version has a thumbnail; none is made.
    public let hasThumbnail = false
    /// Who made the version, for a shared item; nil, as nothing here is shared that way.
    public let originatorNameComponents: PersonNameComponents? = nil

    /// The item this is a version of.
    let item: URL
    /// The kept version's identifier; nil for the current version.
    let keptID: String?
    private var discardable: Bool

    init(item: URL, kept entry: VersionStore.Entry, at url: URL) {
        self.item = item
        self.url = url
        keptID = entry.id
        localizedName = entry.name
        localizedNameOfSavingComputer = entry.computer
        modificationDate = Date(timeIntervalSince1970: entry.modified)
        discardable = entry.discardable
    }

    private init(current item: URL, modified: Date?) {
        self.item = item
        url = item
        keptID = nil
        localizedName = item.lastPathComponent
        localizedNameOfSavingComputer = ProcessInfo.processInfo.hostName
        modificationDate = modified
        discardable = false
    }

    /// What names this version for ``version(itemAt:forPersistentIdentifier:)``: an `NSString`.
    open var persistentIdentifier: any NSCoding {
        NSString(string: keptID ?? Self.currentIdentifier)
    }

    private static let currentIdentifier = "current"

    /// Whether a conflict version was resolved; every version here is, as there are no
    /// conflicts, and setting it changes nothing.
    open var isResolved: Bool {
        get { true }
        set {}
    }

    /// Whether the system may remove the version when it needs the space. As Apple's raises,
    /// it traps when set to `true` on the current version, or back to `false` once `true`.
    open var isDiscardable: Bool {
        get { discardable }
        set {
            precondition(newValue || !discardable, "NSFileVersion: a version of \(item.path) once discardable can't be made undiscardable")
            guard let keptID else {
                precondition(!newValue, "NSFileVersion: the current version of \(item.path) can't be discardable")
                return
            }
            guard let store = try? VersionStore.open(item, creating: false) else { return }
            defer { store.close() }
            if (try? store.setDiscardable(keptID, newValue)) != nil { discardable = newValue }
        }
    }

    // MARK: Finding versions

    /// The item's current version, or nil if there is no item at `url`.
    open class func currentVersionOfItem(at url: URL) -> NSFileVersion? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
        return NSFileVersion(current: url, modified: attributes[.modificationDate] as? Date)
    }

    /// The versions kept of the item, oldest first; nil if there is no item at `url`, or the
    /// store can't be read.
    open class func otherVersionsOfItem(at url: URL) -> [NSFileVersion]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            guard let store = try VersionStore.open(url, creating: false) else { return [] }
            defer { store.close() }
            return try store.entries().map { NSFileVersion(item: url, kept: $0, at: store.url(of: $0)) }
        } catch {
            return nil
        }
    }

    /// The item's conflict versions not yet resolved: none, as nothing here syncs; nil if
    /// there is no item at `url`.
    open class func unresolvedConflictVersionsOfItem(at url: URL) -> [NSFileVersion]? {
        FileManager.default.fileExists(atPath: url.path) ? [] : nil
    }

    /// The version ``persistentIdentifier`` names, if the item still has it.
    open class func version(itemAt url: URL, forPersistentIdentifier persistentIdentifier: Any) -> NSFileVersion? {
        let id = (persistentIdentifier as? String) ?? (persistentIdentifier as? NSString).map { String($0) }
        guard let id else { return nil }
        if id == currentIdentifier { return currentVersionOfItem(at: url) }
        return otherVersionsOfItem(at: url)?.first { $0.keptID == id }
    }

    /// The versions of the item stored elsewhere, such as on iCloud: none, as nothing here
    /// is stored elsewhere.
    open class func getNonlocalVersionsOfItem(at url: URL, completionHandler: @escaping @Sendable ([NSFileVersion]?, (any Error)?) -> Void) {
        DispatchQueue.global().async { completionHandler([], nil) }
    }

    /// The `async` form of ``getNonlocalVersionsOfItem(at:completionHandler:)``.
    open class func nonlocalVersionsOfItem(at url: URL) async throws -> [NSFileVersion] { [] }

    // MARK: Changing versions

    /// Keeps the contents of `contentsURL` as a version of the item at `url`, and tells the
    /// item's presenters. With ``AddingOptions/byMoving`` the file is moved in, not copied.
    open class func addOfItem(at url: URL, withContentsOf contentsURL: URL, options: AddingOptions = []) throws -> NSFileVersion {
        guard let store = try VersionStore.open(url, creating: true) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        defer { store.close() }
        let entry = try store.add(contents: contentsURL, name: url.lastPathComponent, moving: options.contains(.byMoving))
        let version = NSFileVersion(item: url, kept: entry, at: store.url(of: entry))
        VersionNews.tell(.gained, entry, of: url)
        return version
    }

    /// A new folder on the item's file system, where the contents of a new version may be
    /// written before ``addOfItem(at:withContentsOf:options:)`` moves them in.
    open class func temporaryDirectoryURLForNewVersionOfItem(at url: URL) -> URL {
        let store = (try? VersionStore.open(url, creating: true)) ?? nil
        defer { store?.close() }
        let base = store.map { URL(fileURLWithPath: $0.folder.path) } ?? FileManager.default.temporaryDirectory
        let folder = base.appendingPathComponent("tmp-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Removes every version kept of the item, telling its presenters of each.
    open class func removeOtherVersionsOfItem(at url: URL) throws {
        guard let store = try VersionStore.open(url, creating: false) else { return }
        defer { store.close() }
        for entry in try store.entries() {
            if let removed = try store.remove(entry.id) { VersionNews.tell(.lost, removed, of: url) }
        }
    }

    /// Writes this version's contents to `url` and returns `url`: a copy written beside it
    /// and renamed over it, or, with ``ReplacingOptions/byMoving``, a kept version's own
    /// file, which is then no longer kept.
    open func replaceItem(at url: URL, options: ReplacingOptions = []) throws -> URL {
        let store = try VersionStore.open(item, creating: false)
        defer { store?.close() }
        let source: FileDescriptor
        var kept: VersionStore.Entry?
        if let keptID {
            guard let store, let entry = try store.entries().first(where: { $0.id == keptID }) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: self.url.path,
                    NSLocalizedDescriptionKey: "the version of \(item.path) saved \(modificationDate.map { "\($0)" } ?? "") is no longer kept"])
            }
            source = try store.open(entry)
            kept = entry
        } else {
            source = try FileDescriptor.open(item.path)
        }
        defer { source.close() }
        let beside = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).restoring")
        try source.copyContents(toNewFileAt: beside.path)
        // The item keeps its permissions; a new one gets the version's.
        var status = stat()
        if stat(url.path, &status) == 0 || fstat(source.rawValue, &status) == 0 { chmod(beside.path, status.st_mode & 0o7777) }
        guard rename(beside.path, url.path) == 0 else {
            let error = SystemError("rename", subject: url.path)
            try? FileManager.default.removeItem(at: beside)
            throw error
        }
        if options.contains(.byMoving), let kept, let store, let removed = try store.remove(kept.id) {
            VersionNews.tell(.lost, removed, of: item)
        }
        return url
    }

    /// Removes this version, and tells the item's presenters. The current version can't be
    /// removed.
    open func remove() throws {
        guard let keptID else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: item.path,
                NSLocalizedDescriptionKey: "the current version of \(item.path) is the item itself; remove the item instead"])
        }
        guard let store = try VersionStore.open(item, creating: false) else { return }
        defer { store.close() }
        if let removed = try store.remove(keptID) { VersionNews.tell(.lost, removed, of: item) }
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFileVersion else { return false }
        return other.keptID == keptID && other.item.standardizedFileURL == item.standardizedFileURL
    }

    open override var hash: Int { keptID?.hashValue ?? item.hashValue }
}
