import FileProvider

// A File Provider extension in the shape of Xcode's template for the replicated model, with
// a little more: a folder of two notes, fetched from the extension's own copies.
class FileProviderExtension: NSObject, NSFileProviderReplicatedExtension {
    let domain: NSFileProviderDomain
    let notes = ["welcome.txt": "Hello from the provider.\n", "todo.txt": "- port the extension\n"]

    required init(domain: NSFileProviderDomain) {
        self.domain = domain
        super.init()
    }

    func invalidate() {
        // Nothing to let go of.
    }

    func item(for identifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest, completionHandler: @escaping (NSFileProviderItem?, Error?) -> Void) -> Progress {
        if identifier == .rootContainer || notes[identifier.rawValue] != nil {
            completionHandler(FileProviderItem(identifier: identifier, size: notes[identifier.rawValue]?.utf8.count ?? 0), nil)
        } else {
            completionHandler(nil, NSError.fileProviderErrorForNonExistentItem(withIdentifier: identifier))
        }
        return Progress()
    }

    func fetchContents(for itemIdentifier: NSFileProviderItemIdentifier, version requestedVersion: NSFileProviderItemVersion?, request: NSFileProviderRequest, completionHandler: @escaping (URL?, NSFileProviderItem?, Error?) -> Void) -> Progress {
        guard let text = notes[itemIdentifier.rawValue] else {
            completionHandler(nil, nil, NSFileProviderError(.noSuchItem))
            return Progress()
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        do {
            try text.write(to: url, atomically: true, encoding: .utf8)
            completionHandler(url, FileProviderItem(identifier: itemIdentifier, size: text.utf8.count), nil)
        } catch {
            completionHandler(nil, nil, error)
        }
        let progress = Progress(totalUnitCount: 1)
        progress.completedUnitCount = 1
        return progress
    }

    func createItem(basedOn itemTemplate: NSFileProviderItem, fields: NSFileProviderItemFields, contents url: URL?, options: NSFileProviderCreateItemOptions = [], request: NSFileProviderRequest, completionHandler: @escaping (NSFileProviderItem?, NSFileProviderItemFields, Bool, Error?) -> Void) -> Progress {
        completionHandler(itemTemplate, [], false, nil)
        return Progress()
    }

    func modifyItem(_ item: NSFileProviderItem, baseVersion version: NSFileProviderItemVersion, changedFields: NSFileProviderItemFields, contents newContents: URL?, options: NSFileProviderModifyItemOptions = [], request: NSFileProviderRequest, completionHandler: @escaping (NSFileProviderItem?, NSFileProviderItemFields, Bool, Error?) -> Void) -> Progress {
        if version.contentVersion != item.itemVersion.contentVersion, changedFields.contains(.contents) {
            // The server's copy wins: answer with its version, so the system fetches it.
            completionHandler(FileProviderItem(identifier: item.itemIdentifier, size: 0), [], true, nil)
        } else {
            completionHandler(item, [], false, nil)
        }
        return Progress()
    }

    func deleteItem(identifier: NSFileProviderItemIdentifier, baseVersion version: NSFileProviderItemVersion, options: NSFileProviderDeleteItemOptions = [], request: NSFileProviderRequest, completionHandler: @escaping (Error?) -> Void) -> Progress {
        completionHandler(NSError.fileProviderErrorForRejectedDeletion(of: FileProviderItem(identifier: identifier, size: 0)))
        return Progress()
    }

    func enumerator(for containerItemIdentifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest) throws -> NSFileProviderEnumerator {
        guard containerItemIdentifier == .rootContainer || containerItemIdentifier == .workingSet else {
            throw NSFileProviderError(.noSuchItem)
        }
        return FileProviderEnumerator(enumeratedItemIdentifier: containerItemIdentifier, names: notes.keys.sorted(), sizes: notes.mapValues { $0.utf8.count })
    }
}
