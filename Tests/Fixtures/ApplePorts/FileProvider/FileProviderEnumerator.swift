import FileProvider

class FileProviderEnumerator: NSObject, NSFileProviderEnumerator {
    private let enumeratedItemIdentifier: NSFileProviderItemIdentifier
    private let names: [String]
    private let sizes: [String: Int]
    private let anchor = NSFileProviderSyncAnchor("an anchor".data(using: .utf8)!)

    init(enumeratedItemIdentifier: NSFileProviderItemIdentifier, names: [String], sizes: [String: Int]) {
        self.enumeratedItemIdentifier = enumeratedItemIdentifier
        self.names = names
        self.sizes = sizes
        super.init()
    }

    func invalidate() {
        // Nothing to stop.
    }

    func enumerateItems(for observer: NSFileProviderEnumerationObserver, startingAt page: NSFileProviderPage) {
        let start = page == NSFileProviderPage.initialPageSortedByName || page == NSFileProviderPage.initialPageSortedByDate
            ? 0 : Int(String(decoding: page.rawValue, as: UTF8.self)) ?? 0
        let end = min(start + max(1, observer.suggestedPageSize), names.count)
        observer.didEnumerate(names[start..<end].map { FileProviderItem(identifier: NSFileProviderItemIdentifier($0), size: sizes[$0] ?? 0) })
        observer.finishEnumerating(upTo: end < names.count ? NSFileProviderPage("\(end)".data(using: .utf8)!) : nil)
    }

    func enumerateChanges(for observer: NSFileProviderChangeObserver, from anchor: NSFileProviderSyncAnchor) {
        observer.finishEnumeratingChanges(upTo: anchor, moreComing: false)
    }

    func currentSyncAnchor(completionHandler: @escaping (NSFileProviderSyncAnchor?) -> Void) {
        completionHandler(anchor)
    }
}
