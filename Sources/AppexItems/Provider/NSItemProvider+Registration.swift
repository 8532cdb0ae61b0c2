public import Foundation

extension NSItemProvider {
    /// Registers a representation that produces bytes of a type on demand.
    ///
    /// The handler runs on a background queue each time the representation is loaded, as
    /// data or coerced to a file or an item. Call `completionHandler` once, with the data or
    /// with an error; return a `Progress` if the work can be observed or cancelled.
    public func registerDataRepresentation(
        forTypeIdentifier typeIdentifier: String,
        visibility: NSItemProviderRepresentationVisibility,
        loadHandler: @escaping @Sendable (@escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress?
    ) {
        register(Representation(typeIdentifier: typeIdentifier, visibility: visibility, fileOptions: [], loader: .data(loadHandler)))
    }

    /// Registers a representation that produces a file of a type on demand.
    ///
    /// Call `completionHandler` with the URL of a local file (and `true` if readers must
    /// coordinate access to it), or with an error. The file must stay in place until the
    /// completion handler returns: consumers read or copy it before that. With
    /// ``NSItemProviderFileOptions/openInPlace`` in `fileOptions`, a consumer may open the
    /// file itself rather than a copy.
    public func registerFileRepresentation(
        forTypeIdentifier typeIdentifier: String,
        fileOptions: NSItemProviderFileOptions = [],
        visibility: NSItemProviderRepresentationVisibility,
        loadHandler: @escaping @Sendable (@escaping @Sendable (URL?, Bool, (any Error)?) -> Void) -> Progress?
    ) {
        register(Representation(typeIdentifier: typeIdentifier, visibility: visibility, fileOptions: fileOptions, loader: .file(loadHandler)))
    }

    /// Registers a handler that produces an item of a type on demand, visible to all processes.
    ///
    /// The handler receives the completion handler to call with the item (a `String`,
    /// `URL`, `Data` or another ``NSItemProviderValue``) or an error, and the options the
    /// consumer passed to ``loadItem(forTypeIdentifier:options:completionHandler:)``.
    public func registerItem(forTypeIdentifier typeIdentifier: String, loadHandler: @escaping LoadHandler) {
        register(Representation(typeIdentifier: typeIdentifier, visibility: .all, fileOptions: [], loader: .item(loadHandler)))
    }

    /// Registers `value` itself as the item for each of `typeIdentifiers`.
    func registerValue(_ value: any NSItemProviderValue, forTypeIdentifiers typeIdentifiers: [String]) {
        for typeIdentifier in typeIdentifiers {
            registerItem(forTypeIdentifier: typeIdentifier) { completionHandler, _ in completionHandler(value, nil) }
        }
    }
}
