import Foundation

/// News of a version kept or let go (``NSFileVersion``), for the presenters of its item and
/// of the folders that hold it: in this process at once, and in the root's other processes
/// through their inboxes (``PresenterExchange/announce(_:)``).
enum VersionNews {
    enum Change: String, Codable, Sendable {
        case gained, lost
    }

    /// Tells every presenter of `item`, here and in the other processes of its root, that it
    /// gained or lost the version `entry`.
    static func tell(_ change: Change, _ entry: VersionStore.Entry, of item: URL) {
        tellHere(change, entry, of: item)
        let located = CoordinatedItem.locate(item)
        PresenterExchange.forRoot(located.lockFile, creating: false)?
            .announce(PresenterMail.Version(id: "", from: "", path: located.components, change: change, version: entry))
    }

    /// Tells this process's presenters of `item`, and of the folders that hold it.
    static func tellHere(_ change: Change, _ entry: VersionStore.Entry, of item: URL) {
        let presenters = FilePresenters.presenting(excluding: nil)
        guard !presenters.isEmpty else { return }
        let store = (try? VersionStore.open(item, creating: false)) ?? nil
        defer { store?.close() }
        let file = store?.url(of: entry) ?? item.deletingLastPathComponent().appendingPathComponent(entry.file)
        let version = NSFileVersion(item: item, kept: entry, at: file)
        let changed = PresentedPath(item)
        for (presenter, presented) in presenters {
            let message: (() -> Void)? = switch (presented.relation(to: changed), change) {
            case (.same, .gained): { presenter.presentedItemDidGain(version) }
            case (.same, .lost): { presenter.presentedItemDidLose(version) }
            case (.encloses, .gained): { presenter.presentedSubitem(at: item, didGain: version) }
            case (.encloses, .lost): { presenter.presentedSubitem(at: item, didLose: version) }
            case (.inside, _), (.unrelated, _): nil
            }
            guard let message else { continue }
            nonisolated(unsafe) let send = message
            presenter.presentedItemOperationQueue.addOperation { send() }
        }
    }
}
