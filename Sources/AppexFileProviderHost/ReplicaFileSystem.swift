public import AppexFUSE
import AppexFileProvider
import AppexCore
import AppexLocking
import AppexSystem
import Foundation
import Glibc
import Synchronization

/// A domain's replica, served as a FUSE file system: folders listed from the provider the
/// first time they are looked in, files fetched the first time they are opened, and both kept
/// in the ``ReplicaStore`` from then on.
///
/// Changes made on the mount apply to the replica at once and reach the provider in the
/// background (``ReplicaUploader``): a file's contents after its last close, names, folders
/// and deletions as they happen.
public final class ReplicaFileSystem: FUSEFileSystem {
    private let store: ReplicaStore
    private let provider: any ProviderCalls
    private let owner: (userID: UInt32, groupID: UInt32)
    private let report: @Sendable (String) -> Void
    private let listings = SingleFlight<UInt64>()
    private let fetches = SingleFlight<UInt64>()
    private let files = OpenFiles()
    private let uploader: ReplicaUploader
    private let problems = Locked<[String]>([])
    private let readsServed = Atomic<Int>(0)

    /// The most pages, and items, one folder's listing may have: past either, the provider is
    /// taken to list without end.
    public static let listingLimits = (pages: 1_000, items: 100_000)

    /// Serves `store`, listed and fetched from `provider`, as owned by the user running this.
    /// Each problem with the provider's answers goes to `report`, and to standard error if none is given.
    /// Changes that fail to upload are tried again after `retryPause`, then twice as long, and so on.
    public init(store: ReplicaStore, provider: any ProviderCalls, retryPause: Duration = .seconds(1), report: (@Sendable (String) -> Void)? = nil) {
        self.store = store
        self.provider = provider
        owner = (getuid(), getgid())
        let report = report ?? { StandardError.write(line: "appex files: \($0)") }
        self.report = report
        uploader = ReplicaUploader(store: store, provider: provider, firstPause: retryPause, report: report,
                                   isBeingWritten: { [files] node in files.isBeingWritten(node) })
    }

    /// Stops sending changes to the provider; what is pending stays in the replica.
    public func stop() {
        uploader.stop()
    }

    /// How many reads of open files this file system has served itself. None, where the kernel
    /// passes them through to the local copies (Linux 6.9, and appexd with CAP_SYS_ADMIN).
    public var userSpaceReads: Int { readsServed.load(ordering: .relaxed) }

    /// What went wrong lately with the provider's answers, newest last: refused items, failed
    /// listings and fetches.
    public var recentProblems: [String] { problems.withLock { $0 } }

    // MARK: Reading the tree

    public func lookup(_ name: String, in parent: UInt64) async throws -> FUSEEntry {
        try await listIfNeeded(parent)
        guard let entry = try store.child(named: name, of: parent) else { throw FUSEError.notFound }
        return FUSEEntry(attributes: attributes(of: entry))
    }

    public func forget(_ node: UInt64, lookups: UInt64) {}

    public func attributes(of node: UInt64) async throws -> FUSEAttributes {
        guard let entry = try store.entry(node: node) else { throw FUSEError.notFound }
        return attributes(of: entry)
    }

    public func entries(of directory: UInt64) async throws -> [FUSEDirectoryEntry] {
        try await listIfNeeded(directory)
        return try store.children(of: directory).map {
            FUSEDirectoryEntry(name: $0.item.filename, node: $0.node, type: $0.item.isFolder ? UInt32(S_IFDIR) : UInt32(S_IFREG))
        }
    }

    public func statistics() async throws -> FUSEStatistics {
        var system = statvfs()
        guard statvfs(store.folder.path, &system) == 0 else { throw FUSEError.io }
        return FUSEStatistics(blocks: UInt64(system.f_blocks) * UInt64(system.f_frsize) / 4096,
                              freeBlocks: UInt64(system.f_bavail) * UInt64(system.f_frsize) / 4096,
                              files: UInt64(system.f_files), freeFiles: UInt64(system.f_favail))
    }

    /// Lists `node` from the provider, page by page, unless its listing is in the replica.
    private func listIfNeeded(_ node: UInt64) async throws {
        guard let entry = try store.entry(node: node) else { throw FUSEError.notFound }
        guard entry.item.isFolder else { throw FUSEError.notDirectory }
        guard !entry.isListed else { return }
        do {
            try await listings.run(node) { [self] in try await list(entry) }
        } catch {
            throw failure(error, while: "listing \(describe(entry))")
        }
    }

    private func list(_ folder: ReplicaStore.Entry) async throws {
        let container = folder.item.identifier
        var items: [ProviderItem] = []
        var page = NSFileProviderPage.initialPageSortedByName
        for pages in 1... {
            let answer = try await provider.page(of: container, from: page)
            items += answer.items
            guard let next = answer.next else { break }
            guard pages < Self.listingLimits.pages, items.count < Self.listingLimits.items else {
                throw ProviderError.endlessListing("it gave \(pages) pages and \(items.count) items and had more; a folder may have at most "
                                                   + "\(Self.listingLimits.pages) pages and \(Self.listingLimits.items) items")
            }
            page = next
        }
        let (kept, refusals) = ProviderItemCheck.usable(items, in: container, ancestors: try ancestors(of: folder.node))
        for refusal in refusals { note("\(describe(folder)): left out \(refusal)") }
        try store.replaceChildren(of: folder.node, with: kept)
    }

    /// The identifiers of the folders above `node`, and its own.
    private func ancestors(of node: UInt64) throws -> Set<NSFileProviderItemIdentifier> {
        var found = Set<NSFileProviderItemIdentifier>()
        var current = try store.entry(node: node)
        while let entry = current, found.insert(entry.item.identifier).inserted, entry.node != ReplicaStore.rootNode {
            current = try store.entry(identifier: entry.item.parent)
        }
        return found
    }

    // MARK: Files

    public func open(_ node: UInt64, flags: Int32) async throws -> FUSEOpenFile {
        guard let entry = try store.entry(node: node) else { throw FUSEError.notFound }
        guard !entry.item.isFolder else { throw FUSEError.isDirectory }
        try await materialize(entry)
        let writable = flags & O_ACCMODE != O_RDONLY
        let (handle, contents) = try openContents(of: node, writable: writable)
        try? store.touch(node: node)
        // Contents that were on disk before this open are the same: keep the kernel's pages of
        // them. Where the kernel can, it reads and writes the local copy itself.
        return FUSEOpenFile(handle: handle, keepsCache: entry.isMaterialized, backing: contents)
    }

    /// Fetches `entry`'s contents unless they are on disk.
    private func materialize(_ entry: ReplicaStore.Entry) async throws {
        guard !entry.isMaterialized else { return }
        do {
            try await fetches.run(entry.node) { [self] in try await fetch(entry) }
        } catch {
            throw failure(error, while: "fetching \(describe(entry))")
        }
    }

    private func openContents(of node: UInt64, writable: Bool) throws -> (UInt64, FileDescriptor) {
        let contents: FileDescriptor
        do {
            contents = try FileDescriptor.open(store.contentsURL(node: node).path, flags: (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC)
        } catch {
            throw FUSEError(error.errno)
        }
        return (files.add(OpenFile(node: node, descriptor: contents, writable: writable, before: FileState(contents))), contents)
    }

    private func fetch(_ entry: ReplicaStore.Entry) async throws {
        let (contents, item) = try await provider.fetchContents(of: entry.item.identifier)
        guard item.identifier == entry.item.identifier else {
            try? FileManager.default.removeItem(at: contents)
            throw ProviderError.refused("it answered the contents of \(item.identifier.rawValue) instead")
        }
        try store.materialize(node: entry.node, from: contents, as: item)
    }

    public func read(_ node: UInt64, handle: UInt64, at offset: UInt64, count: Int) async throws -> [UInt8] {
        guard let file = files[handle] else { throw FUSEError.badHandle }
        readsServed.add(1, ordering: .relaxed)
        do {
            return try file.descriptor.read(upTo: count, at: Int(offset))
        } catch {
            throw FUSEError(error.errno)
        }
    }

    public func write(_ bytes: [UInt8], to node: UInt64, handle: UInt64, at offset: UInt64) async throws -> Int {
        guard let file = files.markWritten(handle) else { throw FUSEError.badHandle }
        let written = bytes.withUnsafeBytes { pwrite(file.descriptor.rawValue, $0.baseAddress, $0.count, off_t(offset)) }
        guard written >= 0 else { throw FUSEError(errno) }
        return written
    }

    public func release(_ node: UInt64, handle: UInt64) async {
        guard let file = files.remove(handle) else { return }
        // Written through this open, by the file system's writes or, with passthrough, by the
        // kernel's straight to the local copy, which only its state tells.
        let written = file.written || file.writable && FileState(file.descriptor) != file.before
        file.descriptor.close()
        if written {
            changed(node, [.contents, .contentModificationDate], modified: Date())
        } else if file.writable {
            uploader.kick() // a change waiting for this close, such as a rename
        }
    }

    /// Notes a change made here and wakes the uploader.
    private func changed(_ node: UInt64, _ fields: NSFileProviderItemFields, modified: Date? = nil) {
        do {
            try store.markChanged(node, fields: fields, modified: modified)
            uploader.kick()
        } catch {
            note("\(provider.domain.rawValue): a change to node \(node) could not be kept: \(error)")
        }
    }

    public func flush(_ node: UInt64, handle: UInt64) async throws {}
    public func synchronize(_ node: UInt64, handle: UInt64) async throws {}

    // MARK: Changes

    public func setAttributes(_ changes: FUSEAttributeChanges, of node: UInt64) async throws -> FUSEAttributes {
        guard let entry = try store.entry(node: node) else { throw FUSEError.notFound }
        if let size = changes.size {
            guard !entry.item.isFolder else { throw FUSEError.isDirectory }
            try await materialize(entry)
            guard truncate(store.contentsURL(node: node).path, off_t(clamping: size)) == 0 else { throw FUSEError(errno) }
            changed(node, [.contents, .contentModificationDate], modified: Date())
        }
        if let modified = changes.modified {
            let time = modified.time
            changed(node, [.contentModificationDate], modified: Date(timeIntervalSince1970: Double(time.seconds) + Double(time.nanoseconds) / 1e9))
        }
        // Modes, owners and access times are the mount's own: a provider keeps none of them.
        return try await attributes(of: node)
    }

    public func create(_ name: String, in parent: UInt64, mode: UInt32, flags: Int32, caller: FUSECaller) async throws -> (FUSEEntry, FUSEOpenFile) {
        let entry = try await addLocal(name, in: parent, isFolder: false)
        let (handle, contents) = try openContents(of: entry.node, writable: true)
        return (FUSEEntry(attributes: attributes(of: entry)), FUSEOpenFile(handle: handle, backing: contents))
    }

    public func makeDirectory(_ name: String, in parent: UInt64, mode: UInt32, caller: FUSECaller) async throws -> FUSEEntry {
        let entry = try await addLocal(name, in: parent, isFolder: true)
        uploader.kick()
        return FUSEEntry(attributes: attributes(of: entry))
    }

    private func addLocal(_ name: String, in parent: UInt64, isFolder: Bool) async throws -> ReplicaStore.Entry {
        if ProviderItemCheck.nameProblem(name) != nil { throw FUSEError.invalid }
        try await listIfNeeded(parent)
        guard try store.child(named: name, of: parent) == nil else { throw FUSEError.exists }
        return try store.addLocal(named: name, in: parent, isFolder: isFolder)
    }

    public func unlink(_ name: String, in parent: UInt64) async throws {
        try await listIfNeeded(parent)
        guard let entry = try store.child(named: name, of: parent) else { throw FUSEError.notFound }
        guard !entry.item.isFolder else { throw FUSEError.isDirectory }
        try store.removeLocally(entry.node)
        uploader.kick()
    }

    public func removeDirectory(_ name: String, in parent: UInt64) async throws {
        try await listIfNeeded(parent)
        guard let entry = try store.child(named: name, of: parent) else { throw FUSEError.notFound }
        guard entry.item.isFolder else { throw FUSEError.notDirectory }
        try await listIfNeeded(entry.node)
        guard try store.children(of: entry.node).isEmpty else { throw FUSEError.notEmpty }
        try store.removeLocally(entry.node)
        uploader.kick()
    }

    public func rename(_ name: String, in parent: UInt64, to newName: String, in newParent: UInt64, options: FUSERenameOptions) async throws {
        guard !options.contains(.exchange) else { throw FUSEError.invalid }
        if ProviderItemCheck.nameProblem(newName) != nil { throw FUSEError.invalid }
        try await listIfNeeded(parent)
        try await listIfNeeded(newParent)
        guard let entry = try store.child(named: name, of: parent) else { throw FUSEError.notFound }
        if try ancestors(of: newParent).contains(entry.item.identifier) { throw FUSEError.invalid } // into itself
        if let replaced = try store.child(named: newName, of: newParent), replaced.node != entry.node {
            guard !options.contains(.noReplace) else { throw FUSEError.exists }
            if replaced.item.isFolder != entry.item.isFolder { throw replaced.item.isFolder ? FUSEError.isDirectory : FUSEError.notDirectory }
            if replaced.item.isFolder, try !store.children(of: replaced.node).isEmpty { throw FUSEError.notEmpty }
            try store.removeLocally(replaced.node)
        }
        try store.move(entry.node, to: newName, in: newParent)
        uploader.kick()
    }

    // MARK: Attributes and errors

    private func attributes(of entry: ReplicaStore.Entry) -> FUSEAttributes {
        var item = entry.item
        var local = stat()
        if !item.isFolder, entry.isMaterialized, stat(store.contentsURL(node: entry.node).path, &local) == 0 {
            item.size = UInt64(local.st_size) // the local copy, which writes here change before the provider knows
        }
        let modified = (item.modified ?? item.created).map(FUSETime.init(date:)) ?? FUSETime(seconds: 0)
        let permissions: UInt32 = item.isFolder ? 0o755 : 0o644
        return FUSEAttributes(node: entry.node, size: item.size, mode: (item.isFolder ? UInt32(S_IFDIR) : UInt32(S_IFREG)) | permissions,
                              linkCount: item.isFolder ? 2 : 1, userID: owner.userID, groupID: owner.groupID,
                              accessed: modified, modified: modified, changed: modified)
    }

    private func describe(_ entry: ReplicaStore.Entry) -> String {
        entry.node == ReplicaStore.rootNode ? "the domain's top folder" : "\"\(entry.item.filename)\""
    }

    /// Notes what went wrong, and the `errno` its caller gets.
    private func failure(_ error: any Error, while doing: String) -> FUSEError {
        if let error = error as? FUSEError { return error }
        note("\(provider.domain.rawValue): \(doing) failed: \(error)")
        return FUSEError(Self.errorNumber(for: error))
    }

    private func note(_ problem: String) {
        report(problem)
        problems.withLock { problems in
            problems.append(problem)
            if problems.count > 50 { problems.removeFirst() }
        }
    }

    /// The `errno` a caller gets for a provider's error: its meaning, where one fits.
    static func errorNumber(for error: any Error) -> Int32 {
        switch error {
        case ProviderError.noAnswer: return ETIMEDOUT
        case NSFileProviderError.noSuchItem: return ENOENT
        case NSFileProviderError.notAuthenticated: return EACCES
        case NSFileProviderError.serverUnreachable: return EHOSTUNREACH
        case NSFileProviderError.insufficientQuota: return EDQUOT
        default: return EIO
        }
    }
}

extension FUSETime {
    init(date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        self.init(seconds: Int64(seconds), nanoseconds: UInt32(min(999_999_999, max(0, (date.timeIntervalSince1970 - seconds) * 1e9))))
    }
}

/// A file open on the mount: its local copy, and whether it was written through this open.
private struct OpenFile: Sendable {
    let node: UInt64
    let descriptor: FileDescriptor
    let writable: Bool
    /// The local copy's state when it was opened.
    let before: FileState?
    var written = false
}

/// The files open on the mount, by handle.
private final class OpenFiles: Sendable {
    private let files = Locked<(open: [UInt64: OpenFile], next: UInt64)>(([:], 1))

    subscript(handle: UInt64) -> OpenFile? { files.withLock { $0.open[handle] } }

    func add(_ file: OpenFile) -> UInt64 {
        files.withLock { files in
            defer { files.next += 1 }
            files.open[files.next] = file
            return files.next
        }
    }

    func markWritten(_ handle: UInt64) -> OpenFile? {
        files.withLock { files in
            files.open[handle]?.written = true
            return files.open[handle]
        }
    }

    func remove(_ handle: UInt64) -> OpenFile? {
        files.withLock { $0.open.removeValue(forKey: handle) }
    }

    /// Whether `node` is open for writing: its contents go to the provider after the last close.
    func isBeingWritten(_ node: UInt64) -> Bool {
        files.withLock { $0.open.values.contains { $0.node == node && $0.writable } }
    }
}
