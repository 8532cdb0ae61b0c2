import AppexCore
import AppexLocking
import Dispatch
import Synchronization
public import Foundation

extension NSItemProvider {
    /// Loads the item for the first registered type that conforms to `typeIdentifier`.
    ///
    /// The item is what the representation holds: the item of an item representation (cast
    /// it: `item as? URL`, `item as? [String: Any]`), the bytes of a data representation
    /// (`item as? Data`), or the file URL of a file representation. That URL is the
    /// provider's own file, valid while the completion handler runs; use
    /// ``loadFileRepresentation(forTypeIdentifier:completionHandler:)`` for a copy of the file
    /// or ``loadDataRepresentation(forTypeIdentifier:completionHandler:)`` for its bytes. The
    /// completion handler runs once, on a background queue.
    ///
    /// `options` go to the representation's ``LoadHandler``; keys such as Apple's preferred
    /// image size are the provider's to interpret. Only string keys with property-list
    /// values travel: the handler may be in another process.
    public func loadItem(
        forTypeIdentifier typeIdentifier: String,
        options: [AnyHashable: Any]? = nil,
        completionHandler: CompletionHandler? = nil
    ) {
        load(typeIdentifier, options: options?.propertyListOptions, convert: { payload, _ in payload.item.itemValue }) { item, error in
            completionHandler?(item?.secureCodingObject, error)
        }
    }

    /// Loads the bytes of the first registered type that conforms to `typeIdentifier`.
    ///
    /// A file representation is read; an item is coerced (text as UTF-8, a URL as its
    /// string, a file URL under a content type as the file's contents).
    @discardableResult
    public func loadDataRepresentation(
        forTypeIdentifier typeIdentifier: String,
        completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
    ) -> Progress {
        load(typeIdentifier, convert: { payload, context in try payload.data(in: context) }, completionHandler: completionHandler)
    }

    /// Loads a temporary file holding the first registered type that conforms to
    /// `typeIdentifier`, and deletes that file when the completion handler returns.
    ///
    /// A file representation is copied; data and items are written to a new file named
    /// after ``suggestedName`` with the type's filename extension. Read, move or copy the
    /// file inside the completion handler: as on Apple's platforms it is gone afterwards.
    @discardableResult
    public func loadFileRepresentation(
        forTypeIdentifier typeIdentifier: String,
        completionHandler: @escaping @Sendable (URL?, (any Error)?) -> Void
    ) -> Progress {
        loadFile(typeIdentifier, inPlace: false) { url, _, error in completionHandler(url, error) }
    }

    /// Opens the provider's own file when the representation was registered with
    /// ``NSItemProviderFileOptions/openInPlace`` (`isInPlace` is then `true`), and
    /// otherwise loads a temporary copy, deleted when the completion handler returns.
    @discardableResult
    public func loadInPlaceFileRepresentation(
        forTypeIdentifier typeIdentifier: String,
        completionHandler: @escaping @Sendable (_ url: URL?, _ isInPlace: Bool, _ error: (any Error)?) -> Void
    ) -> Progress {
        loadFile(typeIdentifier, inPlace: true, completionHandler: completionHandler)
    }

    /// A file handed to a consumer: the provider's own, or a copy to delete afterwards.
    enum FileHandOver: Sendable {
        case inPlace(URL)
        case copy(TemporaryFile)
    }

    func loadFile(
        _ typeIdentifier: String,
        inPlace: Bool,
        completionHandler: @escaping @Sendable (URL?, Bool, (any Error)?) -> Void
    ) -> Progress {
        load(typeIdentifier, convert: { payload, context in
            if inPlace, case .file(let url, _) = payload, context.representation.fileOptions.contains(.openInPlace) {
                return FileHandOver.inPlace(url)
            }
            return FileHandOver.copy(try payload.temporaryFile(in: context))
        }) { result in
            switch result {
            case .success(.inPlace(let url)):
                completionHandler(url, true, nil)
            case .success(.copy(let file)):
                defer { file.remove() }
                completionHandler(file.url, false, nil)
            case .failure(let error):
                completionHandler(nil, false, error)
            }
        }
    }

    /// ``load(_:options:convert:completion:)``, reporting to an Objective-C-style completion
    /// handler that gets the value or the error.
    @discardableResult
    func load<Value>(
        _ typeIdentifier: String,
        options: [String: PropertyListValue]? = nil,
        convert: @escaping @Sendable (Representation.Payload, LoadContext) throws -> Value,
        completionHandler: @escaping @Sendable (Value?, (any Error)?) -> Void
    ) -> Progress {
        load(typeIdentifier, options: options, convert: convert) { (result: Result<Value, any Error>) in
            switch result {
            case .success(let value): completionHandler(value, nil)
            case .failure(let error): completionHandler(nil, error)
            }
        }
    }

    /// Finds the representation for `typeIdentifier`, runs it on a background queue, and
    /// converts what it produced while its file (if any) is still valid.
    ///
    /// Every load goes through here, so they all follow the same lookup, threading,
    /// progress and error rules.
    @discardableResult
    func load<Value>(
        _ typeIdentifier: String,
        options: [String: PropertyListValue]? = nil,
        convert: @escaping @Sendable (Representation.Payload, LoadContext) throws -> Value,
        completion: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Progress {
        let progress = Progress(totalUnitCount: 1)
        let finish: @Sendable (Result<Value, any Error>) -> Void = { result in
            progress.completedUnitCount = progress.totalUnitCount
            completion(result)
        }
        let (representations, suggestedName) = state.withLock { ($0.representations, $0.suggestedName) }
        let registered = representations.map(\.typeIdentifier)
        guard let representation = representations.first(where: { $0.conforms(to: typeIdentifier) }) else {
            let error = NSItemProviderError(
                .itemUnavailableError, typeIdentifier: typeIdentifier, registeredTypeIdentifiers: registered,
                reason: registered.isEmpty
                    ? "the provider has no representations; register one before handing the provider over"
                    : "no registered type conforms to it; ask for a registered type or one it conforms to,"
                        + " and check hasItemConformingToTypeIdentifier(_:) first")
            DispatchQueue.global().async { finish(.failure(error)) }
            return progress
        }
        let context = LoadContext(
            requested: typeIdentifier, registered: registered, representation: representation,
            suggestedName: suggestedName, temporaryDirectory: temporaryDirectory)
        DispatchQueue.global().async {
            let handlerProgress = representation.load(options: options, context: context) { result in
                finish(result.flatMap { payload in Result { try convert(payload, context) } })
            }
            if let handlerProgress {
                progress.cancellationHandler = { handlerProgress.cancel() }
                if progress.isCancelled { handlerProgress.cancel() }
            }
        }
        return progress
    }
}
