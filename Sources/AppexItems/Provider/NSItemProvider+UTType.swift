public import AppexCore
public import Foundation

// Apple's newer API, which names types with `UTType` rather than identifier strings.
extension NSItemProvider {
    /// The types of the registered representations, in registration order. Identifiers
    /// that are not well-formed type identifiers are left out.
    public var registeredContentTypes: [UTType] {
        registeredTypeIdentifiers.compactMap { UTType($0) }
    }

    /// The types of the file representations that can be opened in place.
    public var registeredContentTypesForOpenInPlace: [UTType] {
        registeredTypeIdentifiers(fileOptions: .openInPlace).compactMap { UTType($0) }
    }

    /// The registered types that conform to `contentType`, in registration order.
    public func registeredContentTypes(conformingTo contentType: UTType) -> [UTType] {
        registeredContentTypes.filter { $0.conforms(to: contentType) }
    }

    /// Registers a data representation of `contentType`; see
    /// ``registerDataRepresentation(forTypeIdentifier:visibility:loadHandler:)``.
    public func registerDataRepresentation(
        for contentType: UTType,
        visibility: NSItemProviderRepresentationVisibility = .all,
        loadHandler: @escaping @Sendable (@escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress?
    ) {
        registerDataRepresentation(forTypeIdentifier: contentType.identifier, visibility: visibility, loadHandler: loadHandler)
    }

    /// Registers a file representation of `contentType`; see
    /// ``registerFileRepresentation(forTypeIdentifier:fileOptions:visibility:loadHandler:)``.
    public func registerFileRepresentation(
        for contentType: UTType,
        visibility: NSItemProviderRepresentationVisibility = .all,
        openInPlace: Bool = false,
        loadHandler: @escaping @Sendable (@escaping @Sendable (URL?, Bool, (any Error)?) -> Void) -> Progress?
    ) {
        registerFileRepresentation(
            forTypeIdentifier: contentType.identifier, fileOptions: openInPlace ? .openInPlace : [],
            visibility: visibility, loadHandler: loadHandler)
    }

    /// Loads the bytes of `contentType`; see ``loadDataRepresentation(forTypeIdentifier:completionHandler:)``.
    @discardableResult
    public func loadDataRepresentation(
        for contentType: UTType,
        completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
    ) -> Progress {
        loadDataRepresentation(forTypeIdentifier: contentType.identifier, completionHandler: completionHandler)
    }

    /// Loads a file of `contentType`: a temporary copy deleted when the completion handler
    /// returns, or with `openInPlace` the provider's own file when it allows that (see
    /// ``loadInPlaceFileRepresentation(forTypeIdentifier:completionHandler:)``).
    @discardableResult
    public func loadFileRepresentation(
        for contentType: UTType,
        openInPlace: Bool = false,
        completionHandler: @escaping @Sendable (_ url: URL?, _ isInPlace: Bool, _ error: (any Error)?) -> Void
    ) -> Progress {
        loadFile(contentType.identifier, inPlace: openInPlace, completionHandler: completionHandler)
    }
}
