import AppexLocking
import FileProvider
import UniformTypeIdentifiers

/// A File Provider extension written as an author would, over a tree held in memory: the
/// replica's tests' provider. `behaviour` makes it misbehave as a hostile or broken one would.
final class ShelfProvider: NSObject, NSFileProviderReplicatedExtension, @unchecked Sendable {
    struct Node {
        var parent: NSFileProviderItemIdentifier
        var name: String
        var contents: String?  // nil for a folder
        var version = 1
    }

    enum Behaviour {
        case honest
        /// Lists every folder with items that must be refused, beside the honest ones.
        case hostileNames
        /// Never finishes a listing: each page has a next.
        case endlessListing
        /// Never answers a fetch.
        case hangingFetch
        /// Fails every fetch with this error.
        case failingFetch(NSFileProviderError.Code)
        /// Answers every fetch, then calls its completion handler again with an error.
        case answersTwice
    }

    let nodes: Locked<[NSFileProviderItemIdentifier: Node]>
    /// While true, every change fails as a server out of reach would.
    let unreachable = Locked(false)
    let nextIdentifier = Locked(1)
    let fetchCount = Locked(0)
    let pageCount = Locked(0)
    let behaviour: Behaviour
    /// Items per page, at most.
    let pageSize: Int

    init(behaviour: Behaviour = .honest, pageSize: Int = 2) {
        self.behaviour = behaviour
        self.pageSize = pageSize
        nodes = Locked([
            NSFileProviderItemIdentifier("work"): Node(parent: .rootContainer, name: "Work", contents: nil),
            NSFileProviderItemIdentifier("report"): Node(parent: NSFileProviderItemIdentifier("work"), name: "report.txt", contents: "quarterly figures\n"),
            NSFileProviderItemIdentifier("plan"): Node(parent: NSFileProviderItemIdentifier("work"), name: "plan.md", contents: "# Plan\n"),
            NSFileProviderItemIdentifier("notes"): Node(parent: NSFileProviderItemIdentifier("work"), name: "notes.txt", contents: "remember\n"),
            NSFileProviderItemIdentifier("photos"): Node(parent: .rootContainer, name: "Photos", contents: nil),
            NSFileProviderItemIdentifier("beach"): Node(parent: NSFileProviderItemIdentifier("photos"), name: "beach.jpg", contents: "JPEG"),
        ])
        super.init()
    }

    required convenience init(domain: NSFileProviderDomain) {
        self.init()
    }

    func invalidate() {}

    func item(_ identifier: NSFileProviderItemIdentifier) -> ShelfItem? {
        nodes.withLock { nodes in nodes[identifier].map { ShelfItem(identifier: identifier, node: $0) } }
    }

    func item(for identifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest,
              completionHandler: @escaping ((any NSFileProviderItem)?, (any Error)?) -> Void) -> Progress {
        let found = item(identifier)
        completionHandler(found, found == nil ? NSFileProviderError(.noSuchItem) : nil)
        return Progress()
    }

    func fetchContents(for itemIdentifier: NSFileProviderItemIdentifier, version requestedVersion: NSFileProviderItemVersion?,
                       request: NSFileProviderRequest, completionHandler: @escaping (URL?, (any NSFileProviderItem)?, (any Error)?) -> Void) -> Progress {
        fetchCount.withLock { $0 += 1 }
        switch behaviour {
        case .hangingFetch: return Progress()
        case let .failingFetch(code):
            completionHandler(nil, nil, NSFileProviderError(code))
            return Progress()
        default: break
        }
        guard let item = item(itemIdentifier), let contents = nodes.withLock({ $0[itemIdentifier]?.contents }) else {
            completionHandler(nil, nil, NSFileProviderError(.noSuchItem))
            return Progress()
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-\(UUID().uuidString)")
        do {
            try contents.write(to: url, atomically: false, encoding: .utf8)
            completionHandler(url, item, nil)
        } catch {
            completionHandler(nil, nil, error)
        }
        if case .answersTwice = behaviour { completionHandler(nil, nil, NSFileProviderError(.serverUnreachable)) }
        return Progress()
    }

    func createItem(basedOn itemTemplate: any NSFileProviderItem, fields: NSFileProviderItemFields, contents url: URL?, options: NSFileProviderCreateItemOptions,
                    request: NSFileProviderRequest, completionHandler: @escaping ((any NSFileProviderItem)?, NSFileProviderItemFields, Bool, (any Error)?) -> Void) -> Progress {
        guard !unreachable.withLock({ $0 }) else {
            completionHandler(nil, [], false, NSFileProviderError(.serverUnreachable))
            return Progress()
        }
        let identifier = NSFileProviderItemIdentifier("item-\(nextIdentifier.withLock { next in defer { next += 1 }; return next })")
        let isFolder = itemTemplate.contentType.conforms(to: .folder)
        let node = Node(parent: itemTemplate.parentItemIdentifier, name: itemTemplate.filename,
                        contents: isFolder ? nil : url.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "")
        nodes.withLock { $0[identifier] = node }
        completionHandler(ShelfItem(identifier: identifier, node: node), [], false, nil)
        return Progress()
    }

    func modifyItem(_ item: any NSFileProviderItem, baseVersion version: NSFileProviderItemVersion, changedFields: NSFileProviderItemFields, contents newContents: URL?,
                    options: NSFileProviderModifyItemOptions, request: NSFileProviderRequest,
                    completionHandler: @escaping ((any NSFileProviderItem)?, NSFileProviderItemFields, Bool, (any Error)?) -> Void) -> Progress {
        guard !unreachable.withLock({ $0 }) else {
            completionHandler(nil, [], false, NSFileProviderError(.serverUnreachable))
            return Progress()
        }
        let updated = nodes.withLock { nodes -> Node? in
            guard var node = nodes[item.itemIdentifier] else { return nil }
            if changedFields.contains(.filename) { node.name = item.filename }
            if changedFields.contains(.parentItemIdentifier) { node.parent = item.parentItemIdentifier }
            if changedFields.contains(.contents), let newContents {
                node.contents = (try? String(contentsOf: newContents, encoding: .utf8)) ?? ""
                node.version += 1
            }
            nodes[item.itemIdentifier] = node
            return node
        }
        guard let updated else {
            completionHandler(nil, [], false, NSFileProviderError(.noSuchItem))
            return Progress()
        }
        completionHandler(ShelfItem(identifier: item.itemIdentifier, node: updated), [], false, nil)
        return Progress()
    }

    func deleteItem(identifier: NSFileProviderItemIdentifier, baseVersion version: NSFileProviderItemVersion, options: NSFileProviderDeleteItemOptions,
                    request: NSFileProviderRequest, completionHandler: @escaping ((any Error)?) -> Void) -> Progress {
        guard !unreachable.withLock({ $0 }) else {
            completionHandler(NSFileProviderError(.serverUnreachable))
            return Progress()
        }
        nodes.withLock { nodes in
            var gone: Set<NSFileProviderItemIdentifier> = [identifier]
            while let more = nodes.first(where: { gone.contains($0.value.parent) && !gone.contains($0.key) })?.key { gone.insert(more) }
            for identifier in gone { nodes[identifier] = nil }
        }
        completionHandler(nil)
        return Progress()
    }

    /// The contents of the item at `path` (names joined by "/") as the provider has it.
    func contents(at path: String) -> String? {
        nodes.withLock { nodes in
            var parent = NSFileProviderItemIdentifier.rootContainer
            var found: Node?
            for name in path.split(separator: "/") {
                guard let (identifier, node) = nodes.first(where: { $0.value.parent == parent && $0.value.name == name }) else { return nil }
                parent = identifier
                found = node
            }
            return found?.contents ?? (found == nil ? nil : "<folder>")
        }
    }

    func enumerator(for containerItemIdentifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest) throws -> any NSFileProviderEnumerator {
        let children = nodes.withLock { nodes in
            nodes.filter { $0.value.parent == containerItemIdentifier }.map { ShelfItem(identifier: $0.key, node: $0.value) }.sorted { $0.filename < $1.filename }
        }
        guard containerItemIdentifier == .rootContainer || item(containerItemIdentifier) != nil else { throw NSFileProviderError(.noSuchItem) }
        return ShelfEnumerator(provider: self, container: containerItemIdentifier, items: children)
    }
}

final class ShelfItem: NSObject, NSFileProviderItem {
    let itemIdentifier: NSFileProviderItemIdentifier
    let parentItemIdentifier: NSFileProviderItemIdentifier
    let filename: String
    let contents: String?
    let version: Int

    init(identifier: NSFileProviderItemIdentifier, parent: NSFileProviderItemIdentifier, name: String, contents: String?, version: Int = 1) {
        itemIdentifier = identifier
        parentItemIdentifier = parent
        filename = name
        self.contents = contents
        self.version = version
    }

    convenience init(identifier: NSFileProviderItemIdentifier, node: ShelfProvider.Node) {
        self.init(identifier: identifier, parent: node.parent, name: node.name, contents: node.contents, version: node.version)
    }

    var contentType: UTType { contents == nil ? .folder : .plainText }
    var documentSize: NSNumber? { contents.map { NSNumber(value: $0.utf8.count) } }
    var itemVersion: NSFileProviderItemVersion {
        NSFileProviderItemVersion(contentVersion: Data("\(version)".utf8), metadataVersion: Data("\(version)".utf8))
    }
}

final class ShelfEnumerator: NSObject, NSFileProviderEnumerator {
    let provider: ShelfProvider
    let container: NSFileProviderItemIdentifier
    let items: [ShelfItem]

    init(provider: ShelfProvider, container: NSFileProviderItemIdentifier, items: [ShelfItem]) {
        self.provider = provider
        self.container = container
        self.items = items
    }

    func invalidate() {}

    func enumerateItems(for observer: any NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage) {
        provider.pageCount.withLock { $0 += 1 }
        let start = page == NSFileProviderPage.initialPageSortedByName ? 0 : Int(String(decoding: page.rawValue, as: UTF8.self)) ?? 0
        switch provider.behaviour {
        case .endlessListing:
            observer.didEnumerate([ShelfItem(identifier: NSFileProviderItemIdentifier("more-\(start)"), parent: container, name: "more \(start)", contents: "")])
            observer.finishEnumerating(upTo: NSFileProviderPage(Data("\(start + 1)".utf8)))
            return
        case .hostileNames where start == 0 && container == .rootContainer:
            observer.didEnumerate([
                ShelfItem(identifier: NSFileProviderItemIdentifier("up"), parent: container, name: "..", contents: "escape"),
                ShelfItem(identifier: NSFileProviderItemIdentifier("slash"), parent: container, name: "../../etc/passwd", contents: "escape"),
                ShelfItem(identifier: NSFileProviderItemIdentifier("empty"), parent: container, name: "", contents: ""),
                ShelfItem(identifier: NSFileProviderItemIdentifier("twin"), parent: container, name: "twin.txt", contents: "first"),
                ShelfItem(identifier: NSFileProviderItemIdentifier("twin2"), parent: container, name: "twin.txt", contents: "second"),
                ShelfItem(identifier: NSFileProviderItemIdentifier("twin"), parent: container, name: "again.txt", contents: "duplicate identifier"),
                ShelfItem(identifier: .rootContainer, parent: container, name: "Root again", contents: nil),
                ShelfItem(identifier: NSFileProviderItemIdentifier("elsewhere"), parent: NSFileProviderItemIdentifier("photos"), name: "stray.txt", contents: ""),
            ])
        default: break
        }
        let end = min(start + provider.pageSize, items.count)
        observer.didEnumerate(Array(items[min(start, end)..<end]))
        observer.finishEnumerating(upTo: end < items.count ? NSFileProviderPage(Data("\(end)".utf8)) : nil)
    }
}
