import AppexLocking
import Foundation

/// The file presenters registered in this process (``NSFileCoordinator/addFilePresenter(_:)``),
/// held weakly: Apple asks that each be removed before it goes, and one that goes anyway is
/// forgotten rather than messaged.
enum FilePresenters {
    private static let table = Locked<[Registered]>([])

    /// Registers `presenter`; registering it again changes nothing.
    static func add(_ presenter: any NSFilePresenter) {
        table.withLock { table in
            table.removeAll { $0.presenter == nil }
            if !table.contains(where: { $0.presenter === presenter }) { table.append(Registered(presenter: presenter)) }
        }
    }

    static func remove(_ presenter: any NSFilePresenter) {
        table.withLock { table in table.removeAll { $0.presenter == nil || $0.presenter === presenter } }
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
