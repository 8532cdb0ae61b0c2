import Foundation

/// News that an item's ubiquity attributes changed (``NSFileCoordinator/item(at:didChangeUbiquityAttributes:)``),
/// for the presenters of that item that observe them: in this process at once, and in the
/// container's other processes through their inboxes (``PresenterExchange/announce(_:)``).
enum UbiquityNews {
    /// What ``NSFilePresenter/observedPresentedItemUbiquityAttributes`` holds by default:
    /// every ubiquity attribute, as Apple's presenter that doesn't implement the property hears.
    static let everyAttribute = URLResourceKey(rawValue: "AppexEveryUbiquityAttribute")

    /// Tells every presenter of `item`, here and in the other processes of its container.
    static func tell(_ attributes: Set<URLResourceKey>, of item: URL) {
        guard !attributes.isEmpty else { return }
        tellHere(attributes, of: item)
        let located = CoordinatedItem.locate(item)
        PresenterExchange.forRoot(located.lockFile, creating: false)?
            .announce(PresenterMail.Ubiquity(id: "", from: "", path: located.components, attributes: attributes.map(\.rawValue).sorted()))
    }

    /// Tells this process's presenters of `item` the attributes each observes, if any.
    static func tellHere(_ attributes: Set<URLResourceKey>, of item: URL) {
        let changed = PresentedPath(item)
        for (presenter, presented) in FilePresenters.presenting(excluding: nil) where presented.relation(to: changed) == .same {
            let observed = presenter.observedPresentedItemUbiquityAttributes
            let heard = observed.contains(everyAttribute) ? attributes : attributes.intersection(observed)
            guard !heard.isEmpty else { continue }
            nonisolated(unsafe) let presenter = presenter
            presenter.presentedItemOperationQueue.addOperation { presenter.presentedItemDidChangeUbiquityAttributes(heard) }
        }
    }
}
