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

    /// Registers a handler that produces an item of a type on demand, visible to all
    /// processes: Apple's `registerItem(forTypeIdentifier:loadHandler:)`.
    ///
    /// The handler gets the completion handler to call once, with the item (an `NSString`,
    /// `NSURL`, `NSData`, `NSNumber`, `NSDate`, or an `NSArray` or `NSDictionary` of those,
    /// such as `text as NSString`) or an error; no expected class; and the options the
    /// consumer passed to ``loadItem(forTypeIdentifier:options:completionHandler:)``. An
    /// item of another class fails the load with ``NSItemProvider/ErrorCode/unexpectedValueClassError``.
    public func registerItem(forTypeIdentifier typeIdentifier: String, loadHandler: @escaping LoadHandler) {
        register(Representation(typeIdentifier: typeIdentifier, visibility: .all, fileOptions: [], loader: .object(loadHandler)))
    }

    /// Registers a handler that produces a Swift value of a type on demand, for a transport
    /// that stands for another process's provider.
    package func registerValue(forTypeIdentifier typeIdentifier: String,
                               loadHandler: @escaping @Sendable (_ completionHandler: @escaping @Sendable ((any NSItemProviderValue)?, (any Error)?) -> Void) -> Void) {
        register(Representation(typeIdentifier: typeIdentifier, visibility: .all, fileOptions: [], loader: .value { completion, _ in loadHandler(completion) }))
    }

    /// Registers `value` itself as the item for each of `typeIdentifiers`.
    func registerValue(_ value: any NSItemProviderValue, forTypeIdentifiers typeIdentifiers: [String]) {
        for typeIdentifier in typeIdentifiers {
            registerValue(forTypeIdentifier: typeIdentifier) { completionHandler in completionHandler(value, nil) }
        }
    }

    /// Registers, for `typeIdentifier`, an item that can't be carried: loading it fails with `reason`.
    func registerUnavailable(forTypeIdentifier typeIdentifier: String, reason: String) {
        register(Representation(typeIdentifier: typeIdentifier, visibility: .all, fileOptions: [], loader: .unavailable(reason: reason)))
    }
}
