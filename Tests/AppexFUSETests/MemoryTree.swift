import AppexFUSE
import AppexLocking
import Glibc

/// A file system held in memory: the FUSE layer's test fixture, a file system as plain as can
/// be, so the tests see the kernel protocol's behaviour and not a provider's.
final class MemoryTree: FUSEFileSystem {
    struct Node {
        var attributes: FUSEAttributes
        var contents: [UInt8] = []
        var children: [String: UInt64] = [:]
    }

    private let state: Locked<(nodes: [UInt64: Node], next: UInt64, handles: UInt64)>
    /// Called before each read: a test makes reads slow or hang with it.
    let beforeRead: @Sendable () async -> Void

    init(beforeRead: @escaping @Sendable () async -> Void = {}) {
        let root = Node(attributes: Self.attributes(node: 1, mode: UInt32(S_IFDIR) | 0o755))
        state = Locked(([1: root], 2, 1))
        self.beforeRead = beforeRead
    }

    static func attributes(node: UInt64, mode: UInt32, size: UInt64 = 0) -> FUSEAttributes {
        let now = FUSETime.now
        return FUSEAttributes(node: node, size: size, mode: mode, linkCount: mode & UInt32(S_IFMT) == UInt32(S_IFDIR) ? 2 : 1,
                              userID: getuid(), groupID: getgid(), accessed: now, modified: now, changed: now)
    }

    /// The contents of the file at `path` (names joined by "/"), if there is one.
    func contents(at path: String) -> [UInt8]? {
        state.withLock { state in
            var node: UInt64 = 1
            for name in path.split(separator: "/") {
                guard let child = state.nodes[node]?.children[String(name)] else { return nil }
                node = child
            }
            return state.nodes[node]?.contents
        }
    }

    private func withNodes<T>(_ body: (inout [UInt64: Node]) throws(FUSEError) -> T) throws(FUSEError) -> T {
        try state.withLock { (state) throws(FUSEError) -> T in try body(&state.nodes) }
    }

    func lookup(_ name: String, in parent: UInt64) async throws -> FUSEEntry {
        try withNodes { nodes throws(FUSEError) in
            guard let child = nodes[parent]?.children[name], let node = nodes[child] else { throw .notFound }
            return FUSEEntry(attributes: node.attributes)
        }
    }

    func forget(_ node: UInt64, lookups: UInt64) {}

    func attributes(of node: UInt64) async throws -> FUSEAttributes {
        try withNodes { nodes throws(FUSEError) in
            guard let found = nodes[node] else { throw .notFound }
            return found.attributes
        }
    }

    func setAttributes(_ changes: FUSEAttributeChanges, of node: UInt64) async throws -> FUSEAttributes {
        try withNodes { nodes throws(FUSEError) in
            guard var found = nodes[node] else { throw .notFound }
            if let mode = changes.mode { found.attributes.mode = found.attributes.mode & UInt32(S_IFMT) | mode & 0o7777 }
            if let size = changes.size {
                found.contents = Array(found.contents.prefix(Int(size))) + [UInt8](repeating: 0, count: max(0, Int(size) - found.contents.count))
                found.attributes.size = size
            }
            if let accessed = changes.accessed { found.attributes.accessed = accessed.time }
            if let modified = changes.modified { found.attributes.modified = modified.time }
            nodes[node] = found
            return found.attributes
        }
    }

    func open(_ node: UInt64, flags: Int32) async throws -> FUSEOpenFile {
        FUSEOpenFile(handle: state.withLock { state in
            state.handles += 1
            return state.handles
        })
    }

    func create(_ name: String, in parent: UInt64, mode: UInt32, flags: Int32, caller: FUSECaller) async throws -> (FUSEEntry, FUSEOpenFile) {
        let entry = try add(name, in: parent, mode: UInt32(S_IFREG) | mode & 0o7777)
        return (entry, try await open(entry.attributes.node, flags: flags))
    }

    func read(_ node: UInt64, handle: UInt64, at offset: UInt64, count: Int) async throws -> [UInt8] {
        await beforeRead()
        return try withNodes { nodes throws(FUSEError) in
            guard let contents = nodes[node]?.contents else { throw .notFound }
            let start = min(Int(offset), contents.count)
            return Array(contents[start..<min(start + count, contents.count)])
        }
    }

    func write(_ bytes: [UInt8], to node: UInt64, handle: UInt64, at offset: UInt64) async throws -> Int {
        try withNodes { nodes throws(FUSEError) in
            guard var found = nodes[node] else { throw .notFound }
            let end = Int(offset) + bytes.count
            if found.contents.count < end { found.contents += [UInt8](repeating: 0, count: end - found.contents.count) }
            found.contents.replaceSubrange(Int(offset)..<end, with: bytes)
            found.attributes.size = UInt64(found.contents.count)
            found.attributes.modified = .now
            nodes[node] = found
            return bytes.count
        }
    }

    func flush(_ node: UInt64, handle: UInt64) async throws {}
    func release(_ node: UInt64, handle: UInt64) async {}
    func synchronize(_ node: UInt64, handle: UInt64) async throws {}

    func entries(of directory: UInt64) async throws -> [FUSEDirectoryEntry] {
        try withNodes { nodes throws(FUSEError) in
            guard let found = nodes[directory] else { throw .notFound }
            return found.children.sorted { $0.key < $1.key }.compactMap { name, node in
                nodes[node].map { FUSEDirectoryEntry(name: name, node: node, type: $0.attributes.mode & UInt32(S_IFMT)) }
            }
        }
    }

    func makeDirectory(_ name: String, in parent: UInt64, mode: UInt32, caller: FUSECaller) async throws -> FUSEEntry {
        try add(name, in: parent, mode: UInt32(S_IFDIR) | mode & 0o7777)
    }

    func unlink(_ name: String, in parent: UInt64) async throws {
        try withNodes { nodes throws(FUSEError) in
            guard let child = nodes[parent]?.children[name] else { throw .notFound }
            guard nodes[child]?.attributes.isDirectory == false else { throw .isDirectory }
            nodes[parent]?.children[name] = nil
            nodes[child] = nil
        }
    }

    func removeDirectory(_ name: String, in parent: UInt64) async throws {
        try withNodes { nodes throws(FUSEError) in
            guard let child = nodes[parent]?.children[name], let node = nodes[child] else { throw .notFound }
            guard node.attributes.isDirectory else { throw .notDirectory }
            guard node.children.isEmpty else { throw .notEmpty }
            nodes[parent]?.children[name] = nil
            nodes[child] = nil
        }
    }

    func rename(_ name: String, in parent: UInt64, to newName: String, in newParent: UInt64, options: FUSERenameOptions) async throws {
        try withNodes { nodes throws(FUSEError) in
            guard let child = nodes[parent]?.children[name], nodes[newParent] != nil else { throw .notFound }
            if let replaced = nodes[newParent]?.children[newName] {
                guard !options.contains(.noReplace) else { throw .exists }
                guard nodes[replaced]?.children.isEmpty ?? true else { throw .notEmpty }
                nodes[replaced] = nil
            }
            nodes[parent]?.children[name] = nil
            nodes[newParent]?.children[newName] = child
        }
    }

    func statistics() async throws -> FUSEStatistics {
        FUSEStatistics(blocks: 1 << 20, freeBlocks: 1 << 19, files: 1 << 16, freeFiles: 1 << 15)
    }

    private func add(_ name: String, in parent: UInt64, mode: UInt32) throws(FUSEError) -> FUSEEntry {
        try state.withLock { (state) throws(FUSEError) -> FUSEEntry in
            guard state.nodes[parent]?.attributes.isDirectory == true else { throw .notFound }
            guard state.nodes[parent]?.children[name] == nil else { throw .exists }
            let node = state.next
            state.next += 1
            let attributes = Self.attributes(node: node, mode: mode)
            state.nodes[node] = Node(attributes: attributes)
            state.nodes[parent]?.children[name] = node
            return FUSEEntry(attributes: attributes)
        }
    }
}
