import AppexLocking
import Foundation

/// The file presenters registered in this process (``NSFileCoordinator/addFilePresenter(_:)``),
/// held weakly: Apple asks that each be removed before it goes, and one that goes anyway is
/// forgotten rather than messaged. What they present is published to the other processes
/// of each root (``PresenterExchange``), so that their coordinations ask this one.
enum FilePresenters {
    private static let table = Locked<[Registered]>([])
    /// The roots whose exchange has this process's items.
    private static let published = Locked<Set<String>>([])

    /// Registers `presenter`; registering it again changes nothing.
    static func add(_ presenter: any NSFilePresenter) {
        table.withLock { table in
            table.removeAll { $0.presenter == nil }
            if !table.contains(where: { $0.presenter === presenter }) { table.append(Registered(presenter: presenter)) }
        }
        publish()
    }

    static func remove(_ presenter: any NSFilePresenter) {
        table.withLock { table in table.removeAll { $0.presenter == nil || $0.presenter === presenter } }
        publish()
    }

    /// Publishes, for each root, what this process's presenters present now.
    static func publish() {
        let items = all.compactMap(\.presentedItemURL).map(CoordinatedItem.locate)
        let byRoot = Dictionary(grouping: items, by: \.lockFile).mapValues { Array(Set($0.map(\.components))).sorted { $0.lexicographicallyPrecedes($1) } }
        let roots = published.withLock { published in
            defer { published = Set(byRoot.keys) }
            return published.union(byRoot.keys)
        }
        for root in roots.sorted() { PresenterExchange.forRoot(root, creating: true)?.publish(byRoot[root] ?? []) }
    }

    /// Publishes once every presenter's queue has run what was sent to it, such as the
    /// messages of a move, after which each presents its new place.
    static func publishAfterMessages() {
        let queues = all.map(\.presentedItemOperationQueue)
        DispatchQueue.global().async {
            for queue in queues { queue.waitUntilAllOperationsAreFinished() }
            publish()
        }
    }

    /// Every registered presenter still alive, in the order they were added.
    static var all: [any NSFilePresenter] {
        table.withLock { table in table.compactMap(\.presenter) }
    }

    /// Every registered presenter but `excluded`, with the item it presents now: each one's
    /// `presentedItemURL` is asked once, outside the table's lock, as it may take a lock of its own.
    static func presenting(excluding excluded: (any NSFilePresenter)?) -> [(presenter: any NSFilePresenter, item: PresentedPath)] {
        all.compactMap { presenter in
            guard presenter !== excluded, let url = presenter.presentedItemURL else { return nil }
            return (presenter, PresentedPath(url))
        }
    }

    private struct Registered: @unchecked Sendable {
        weak var presenter: (any NSFilePresenter)?
    }
}

/// A file URL as presenters and coordinations are matched: its standard path, split.
struct PresentedPath: Hashable {
    let components: [String]

    init(_ url: URL) {
        components = url.standardizedFileURL.path.split(separator: "/").map(String.init)
    }

    private init(components: [String]) {
        self.components = components
    }

    /// How a presenter of this item stands to an access of `item`.
    enum Relation {
        /// The same item.
        case same
        /// This item is inside the accessed one, a folder.
        case inside
        /// This item is a folder that holds the accessed one.
        case encloses
        case unrelated
    }

    func relation(to item: PresentedPath) -> Relation {
        if components == item.components { return .same }
        if components.starts(with: item.components) { return .inside }
        if item.components.starts(with: components) { return .encloses }
        return .unrelated
    }

    /// Where this item is once `old`, which is it or holds it, has moved to `new`.
    func moved(from old: PresentedPath, to new: PresentedPath) -> PresentedPath {
        PresentedPath(components: new.components + components.dropFirst(old.components.count))
    }

    var url: URL {
        URL(fileURLWithPath: "/" + components.joined(separator: "/"))
    }
}
