/// The graph of uniform types: which types exist, which conform to which, and their tags.
///
/// Conformance is transitive over a graph, not a tree: `public.jpeg` conforms to
/// `public.image`, which conforms to both `public.data` and `public.content`. Identifiers,
/// filename extensions and MIME types compare case-insensitively, as Apple's do.
///
/// A graph is immutable and safe to share. ``system`` holds the built-in types; an app's
/// exported and imported types join through ``adding(_:)``, which returns a new graph.
///
/// ```swift
/// let graph = UTTypeGraph.system
/// graph.conforms("public.jpeg", to: "public.item")          // true
/// graph.type(forFilenameExtension: "png")?.identifier        // "public.png"
/// ```
///
/// Every type's transitive ancestors are computed once, when the graph is built, so
/// ``conforms(_:to:)`` is a hash lookup and a short scan, with no allocation.
public final class UTTypeGraph: Sendable {
    /// One type in the graph, declared or only named as a parent.
    struct Node: Sendable {
        let declaration: UTTypeDeclaration
        let origin: Origin
        let parents: [Int32]
    }

    /// The most ancestors whose set is precomputed for one type. Real types have a few
    /// dozen at most; a pathological chain past this is walked at query time instead,
    /// so a hostile declaration list can't make the graph quadratic in memory.
    static let maximumPrecomputedAncestors = 256

    let nodes: [Node]
    let index: [CaseInsensitiveKey: Int32]
    /// `ancestorStorage[ancestorOffsets[i] ..< ancestorOffsets[i + 1]]` is node i's sorted
    /// transitive ancestor set, itself included, unless i is in `deepNodes`.
    let ancestorOffsets: [Int32]
    let ancestorStorage: [Int32]
    let deepNodes: Set<Int32>
    let extensionIndex: [CaseInsensitiveKey: [Int32]]
    let mimeIndex: [CaseInsensitiveKey: [Int32]]

    /// The shared-mime-info database that MIME and extension lookups consult, if any.
    ///
    /// The system graph reads it on first use, since conformance checks never need it.
    public var sharedMIMEInfo: SharedMIMEInfo? { mimeInfo.value }
    let mimeInfo: LazyMIMEInfo
    /// Declarations that were left out or overridden while building this graph, and why.
    public let issues: [Issue]

    /// Builds a graph from declarations. A later declaration of the same identifier wins.
    ///
    /// Every declaration is trusted as a system type: use ``adding(_:)`` for app types.
    public convenience init(declarations: [UTTypeDeclaration]) {
        self.init(declarations: declarations, sharedMIMEInfo: nil)
    }

    /// Builds a graph from trusted declarations whose MIME lookups also consult `sharedMIMEInfo`.
    public convenience init(declarations: [UTTypeDeclaration], sharedMIMEInfo: SharedMIMEInfo?) {
        self.init(entries: Self.systemEntries(declarations), mimeInfo: LazyMIMEInfo(sharedMIMEInfo), issues: [])
    }

    /// Builds a graph from trusted declarations whose MIME lookups consult the database
    /// `loadMIMEInfo` reads, the first time one needs it.
    convenience init(declarations: [UTTypeDeclaration], loadMIMEInfo: @escaping @Sendable () -> SharedMIMEInfo?) {
        self.init(entries: Self.systemEntries(declarations), mimeInfo: LazyMIMEInfo(loading: loadMIMEInfo), issues: [])
    }

    /// `declarations` as system entries, one per identifier: a later declaration wins.
    private static func systemEntries(_ declarations: [UTTypeDeclaration]) -> [(declaration: UTTypeDeclaration, origin: Origin)] {
        var order: [CaseInsensitiveKey] = []
        var latest: [CaseInsensitiveKey: UTTypeDeclaration] = [:]
        for declaration in declarations {
            let key = CaseInsensitiveKey(declaration.identifier)
            if latest.updateValue(declaration, forKey: key) == nil { order.append(key) }
        }
        return order.map { (latest[$0]!, Origin.system) }
    }

    /// Builds a graph from unique, already-vetted entries.
    init(entries: [(declaration: UTTypeDeclaration, origin: Origin)], mimeInfo: LazyMIMEInfo, issues: [Issue]) {
        var nodeDeclarations: [(UTTypeDeclaration, Origin)] = entries
        var index: [CaseInsensitiveKey: Int32] = [:]
        index.reserveCapacity(entries.count)
        for (offset, entry) in entries.enumerated() {
            index[CaseInsensitiveKey(entry.declaration.identifier)] = Int32(offset)
        }
        // Parents that nobody declares still get a node, so conformance to them works.
        var parentLists: [[Int32]] = []
        parentLists.reserveCapacity(entries.count)
        for entry in entries {
            var parents: [Int32] = []
            for parent in entry.declaration.conformsTo {
                let key = CaseInsensitiveKey(parent)
                let parentIndex: Int32
                if let existing = index[key] {
                    parentIndex = existing
                } else {
                    parentIndex = Int32(nodeDeclarations.count)
                    index[key] = parentIndex
                    nodeDeclarations.append((UTTypeDeclaration(identifier: parent), .undeclared))
                }
                if parentIndex != index[CaseInsensitiveKey(entry.declaration.identifier)], !parents.contains(parentIndex) {
                    parents.append(parentIndex)
                }
            }
            parentLists.append(parents)
        }
        while parentLists.count < nodeDeclarations.count { parentLists.append([]) }

        var nodes: [Node] = []
        nodes.reserveCapacity(nodeDeclarations.count)
        for (offset, (declaration, origin)) in nodeDeclarations.enumerated() {
            nodes.append(Node(declaration: declaration, origin: origin, parents: parentLists[offset]))
        }

        // Transitive ancestors, by a walk from each node that stamps what it has seen.
        // Cycles are harmless: a node already stamped in this walk is not visited again.
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(nodes.count + 1)
        var storage: [Int32] = []
        var deep: Set<Int32> = []
        var stamp = [Int32](repeating: -1, count: nodes.count)
        var found: [Int32] = []
        for start in nodes.indices {
            let generation = Int32(start)
            found.removeAll(keepingCapacity: true)
            found.append(generation)
            stamp[start] = generation
            var cursor = 0
            var overflow = false
            while cursor < found.count {
                for parent in nodes[Int(found[cursor])].parents where stamp[Int(parent)] != generation {
                    stamp[Int(parent)] = generation
                    found.append(parent)
                }
                cursor += 1
                if found.count > Self.maximumPrecomputedAncestors {
                    overflow = true
                    break
                }
            }
            if overflow {
                deep.insert(generation)
            } else {
                found.sort()
                storage.append(contentsOf: found)
            }
            offsets.append(Int32(storage.count))
        }

        var extensionIndex: [CaseInsensitiveKey: [Int32]] = [:]
        var mimeIndex: [CaseInsensitiveKey: [Int32]] = [:]
        for (offset, node) in nodes.enumerated() {
            for tag in node.declaration.filenameExtensions {
                extensionIndex[CaseInsensitiveKey(tag), default: []].appendUnique(Int32(offset))
            }
            for tag in node.declaration.mimeTypes {
                mimeIndex[CaseInsensitiveKey(tag), default: []].appendUnique(Int32(offset))
            }
        }

        self.nodes = nodes
        self.index = index
        self.ancestorOffsets = offsets
        self.ancestorStorage = storage
        self.deepNodes = deep
        self.extensionIndex = extensionIndex
        self.mimeIndex = mimeIndex
        self.mimeInfo = mimeInfo
        self.issues = issues
    }

    // MARK: Identifiers

    /// The declaration of `identifier`, if the graph declares it. Identifiers compare case-insensitively.
    public func declaration(for identifier: String) -> UTTypeDeclaration? {
        guard let node = index[CaseInsensitiveKey(identifier)], nodes[Int(node)].origin != .undeclared else { return nil }
        return nodes[Int(node)].declaration
    }

    /// Whether the graph declares `identifier`, as a system type or an app's exported or
    /// imported type. A type that is only named as a parent, or a `dyn.` type, is not declared.
    public func isDeclared(_ identifier: String) -> Bool {
        guard let node = index[CaseInsensitiveKey(identifier)] else { return false }
        return nodes[Int(node)].origin != .undeclared
    }

    /// Where the graph's declaration of `identifier` came from, or `nil` if the graph has no node for it.
    public func origin(of identifier: String) -> Origin? {
        index[CaseInsensitiveKey(identifier)].map { nodes[Int($0)].origin }
    }

    /// Every declaration in the graph, in the order they were given.
    public var declarations: [UTTypeDeclaration] {
        nodes.lazy.filter { $0.origin != .undeclared }.map(\.declaration)
    }

    /// The node index of `identifier`, if the graph has a node for it.
    @inline(__always)
    func nodeIndex(of identifier: String) -> Int32? {
        index[CaseInsensitiveKey(identifier)]
    }

    // MARK: Conformance

    /// Whether `type` is `other` or conforms to it, directly or through any chain of parents.
    ///
    /// Both identifiers compare case-insensitively. A `dyn.` type conforms to the types
    /// encoded in its identifier and to their ancestors.
    public func conforms(_ type: String, to other: String) -> Bool {
        if let node = index[CaseInsensitiveKey(type)] {
            guard let target = index[CaseInsensitiveKey(other)] else { return false }
            return conforms(node: node, to: target)
        }
        if equalIgnoringASCIICase(type, other) { return true }
        guard let dynamic = DynamicType(identifier: type) else { return false }
        return dynamic.conformsTo.contains { conforms($0, to: other) }
    }

    /// Whether node `node` is node `target` or has it among its transitive ancestors.
    @inline(__always)
    func conforms(node: Int32, to target: Int32) -> Bool {
        if node == target { return true }
        let start = Int(ancestorOffsets[Int(node)])
        let end = Int(ancestorOffsets[Int(node) + 1])
        if start == end, deepNodes.contains(node) { return walk(from: node, to: target) }
        return ancestorStorage.withUnsafeBufferPointer { buffer in
            if end - start <= 16 {
                for position in start..<end where buffer[position] == target { return true }
                return false
            }
            var low = start
            var high = end
            while low < high {
                let middle = (low + high) / 2
                if buffer[middle] < target { low = middle + 1 } else { high = middle }
            }
            return low < end && buffer[low] == target
        }
    }

    /// The slow path for a type whose ancestors were too many to precompute.
    private func walk(from node: Int32, to target: Int32) -> Bool {
        var seen: Set<Int32> = [node]
        var pending = [node]
        while let current = pending.popLast() {
            if current == target { return true }
            for parent in nodes[Int(current)].parents where seen.insert(parent).inserted {
                pending.append(parent)
            }
        }
        return false
    }

    /// The node indices of every ancestor of `node`, nearest first, without `node` itself.
    func ancestors(of node: Int32) -> [Int32] {
        var seen: Set<Int32> = [node]
        var result: [Int32] = []
        var cursor = 0
        var frontier = [node]
        while cursor < frontier.count {
            for parent in nodes[Int(frontier[cursor])].parents where seen.insert(parent).inserted {
                result.append(parent)
                frontier.append(parent)
            }
            cursor += 1
        }
        return result
    }

    /// Every type `identifier` conforms to, directly or transitively, nearest first and
    /// without `identifier` itself. Empty for a type the graph doesn't know.
    public func supertypes(of identifier: String) -> [String] {
        if let node = index[CaseInsensitiveKey(identifier)] {
            return ancestors(of: node).map { nodes[Int($0)].declaration.identifier }
        }
        guard let dynamic = DynamicType(identifier: identifier) else { return [] }
        var result: [String] = []
        var seen: Set<CaseInsensitiveKey> = []
        for parent in dynamic.conformsTo {
            for identifier in [parent] + supertypes(of: parent) where seen.insert(CaseInsensitiveKey(identifier)).inserted {
                result.append(identifier)
            }
        }
        return result
    }
}

extension Array where Element == Int32 {
    fileprivate mutating func appendUnique(_ element: Int32) {
        if !contains(element) { append(element) }
    }
}
