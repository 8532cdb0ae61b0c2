extension NSItemProvider {
    /// The type identifiers of the registered representations, in registration order.
    public var registeredTypeIdentifiers: [String] {
        representations().map(\.typeIdentifier)
    }

    /// The type identifiers that can be loaded as files with `fileOptions`: all of them for
    /// no options, and only the file representations registered with
    /// ``NSItemProviderFileOptions/openInPlace`` for that option.
    public func registeredTypeIdentifiers(fileOptions: NSItemProviderFileOptions = []) -> [String] {
        representations().filter { $0.offers(fileOptions) }.map(\.typeIdentifier)
    }

    /// The type identifiers that may be offered across a process boundary, when
    /// `crossingProcess` is `true`: those whose visibility is not
    /// ``NSItemProviderRepresentationVisibility/ownProcess``. All of them otherwise.
    public func registeredTypeIdentifiers(crossingProcess: Bool) -> [String] {
        representations(crossingProcess: crossingProcess).map(\.typeIdentifier)
    }

    /// Whether a registered type is `typeIdentifier` or conforms to it: `public.image` finds
    /// `public.jpeg`.
    public func hasItemConformingToTypeIdentifier(_ typeIdentifier: String) -> Bool {
        representations().contains { $0.conforms(to: typeIdentifier) }
    }

    /// Whether a registered representation conforms to `typeIdentifier` and can be loaded
    /// with `fileOptions`.
    public func hasRepresentationConforming(
        toTypeIdentifier typeIdentifier: String,
        fileOptions: NSItemProviderFileOptions = []
    ) -> Bool {
        representations().contains { $0.conforms(to: typeIdentifier) && $0.offers(fileOptions) }
    }
}

extension NSItemProvider.Representation {
    /// Whether the representation can be loaded as a file with `options`.
    func offers(_ options: NSItemProviderFileOptions) -> Bool {
        kind == .file ? fileOptions.isSuperset(of: options) : options.isEmpty
    }
}
