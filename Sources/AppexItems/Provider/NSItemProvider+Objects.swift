import AppexCore
public import Foundation

// Apple's object API: a provider made from an object that can write itself as data, and
// objects read from a provider's data by their class.

extension NSItemProvider {
    /// A provider of `object`'s representations: Apple's `init(object:)`.
    public convenience init(object: any NSItemProviderWriting) {
        self.init()
        registerObject(object, visibility: .all)
    }

    /// Registers `object`'s writable types, in its order: Apple's `registerObject(_:visibility:)`.
    /// A type already registered keeps its representation, as Apple's does.
    ///
    /// An `NSString` or an `NSURL` is registered as an item, as ``init(object:)-(String)``
    /// and ``init(object:)-(URL)`` register one. Another object is registered as a data
    /// representation of each writable type, which calls its
    /// ``NSItemProviderWriting/loadData(withTypeIdentifier:forItemProviderCompletionHandler:)``
    /// on a background queue when loaded; the more private of `visibility` and the object's
    /// own for the type applies.
    public func registerObject(_ object: any NSItemProviderWriting, visibility: NSItemProviderRepresentationVisibility) {
        if let text = object as? NSString {
            return registerValue(String(text), forTypeIdentifiers: unregistered(NSString.writableTypeIdentifiersForItemProvider))
        }
        if let url = object as? NSURL, let url = url as URL? {
            return registerValue(url, forTypeIdentifiers: unregistered((url.isFileURL ? [UTType.fileURL, UTType.url] : [UTType.url]).map(\.identifier)))
        }
        let writer = ObjectWriter(object: object)
        for typeIdentifier in unregistered(object.writableTypeIdentifiersForItemProvider) {
            let own = object.itemProviderVisibilityForRepresentation(withTypeIdentifier: typeIdentifier)
            let narrower = own.rawValue > visibility.rawValue ? own : visibility
            registerDataRepresentation(forTypeIdentifier: typeIdentifier, visibility: narrower) { completion in
                writer.object.loadData(withTypeIdentifier: typeIdentifier, forItemProviderCompletionHandler: completion)
            }
        }
    }

    /// Registers `aClass`'s writable types, each made on demand by `loadHandler`, which gives
    /// an instance, then written as that type's data: Apple's
    /// `registerObject(ofClass:visibility:loadHandler:)`. A type already registered keeps
    /// its representation, and the more private of `visibility` and the class's own for the
    /// type applies. The handler runs on a background queue, once per load.
    public func registerObject(ofClass aClass: any NSItemProviderWriting.Type, visibility: NSItemProviderRepresentationVisibility,
                               loadHandler: @escaping @Sendable (@escaping @Sendable ((any NSItemProviderWriting)?, (any Error)?) -> Void) -> Progress?) {
        for typeIdentifier in unregistered(aClass.writableTypeIdentifiersForItemProvider) {
            let own = aClass.itemProviderVisibilityForRepresentation(withTypeIdentifier: typeIdentifier)
            let narrower = own.rawValue > visibility.rawValue ? own : visibility
            registerDataRepresentation(forTypeIdentifier: typeIdentifier, visibility: narrower) { completion in
                loadHandler { object, error in
                    guard let object else { return completion(nil, error) }
                    _ = object.loadData(withTypeIdentifier: typeIdentifier, forItemProviderCompletionHandler: completion)
                }
            }
        }
    }

    /// Registers the writable types of `T`'s Foundation class, each made on demand from the
    /// `T` that `loadHandler` gives, as Apple's `registerObject(ofClass:visibility:loadHandler:)`
    /// for bridged types such as `String` and `URL`.
    public func registerObject<T: _ObjectiveCBridgeable & SendableMetatype>(ofClass: T.Type, visibility: NSItemProviderRepresentationVisibility,
                                                                            loadHandler: @escaping @Sendable (@escaping @Sendable (T?, (any Error)?) -> Void) -> Progress?)
    where T._ObjectiveCType: NSItemProviderWriting {
        registerObject(ofClass: T._ObjectiveCType.self, visibility: visibility) { completion in
            loadHandler { value, error in completion(value?._bridgeToObjectiveC(), error) }
        }
    }

    /// Whether a registered type conforms to one that `aClass` reads: Apple's `canLoadObject(ofClass:)`.
    public func canLoadObject(ofClass aClass: any NSItemProviderReading.Type) -> Bool {
        readableType(for: aClass) != nil
    }

    /// Whether a registered type conforms to one that `T`'s Foundation class reads, as for
    /// `String.self` or `URL.self`.
    public func canLoadObject<T: _ObjectiveCBridgeable>(ofClass: T.Type) -> Bool where T._ObjectiveCType: NSItemProviderReading {
        canLoadObject(ofClass: T._ObjectiveCType.self)
    }

    /// Loads an instance of `aClass` from the data of the first registered type that
    /// conforms to one it reads: Apple's `loadObject(ofClass:completionHandler:)`. The
    /// handler runs once, on a background queue.
    @discardableResult
    public func loadObject(ofClass aClass: any NSItemProviderReading.Type,
                           completionHandler: @escaping @Sendable ((any NSItemProviderReading)?, (any Error)?) -> Void) -> Progress {
        guard let typeIdentifier = readableType(for: aClass) else {
            let registered = registeredTypeIdentifiers
            let error = NSItemProviderError(.itemUnavailableError, typeIdentifier: aClass.readableTypeIdentifiersForItemProvider.first ?? "\(aClass)",
                                            registeredTypeIdentifiers: registered,
                                            reason: "\(aClass) reads \(aClass.readableTypeIdentifiersForItemProvider.joined(separator: ", ")), and no registered type conforms to any of them;"
                                                + " check canLoadObject(ofClass:) first")
            let progress = Progress(totalUnitCount: 1)
            DispatchQueue.global().async {
                progress.completedUnitCount = 1
                completionHandler(nil, error)
            }
            return progress
        }
        // A class is immutable, whatever Swift can prove of a protocol's metatype.
        nonisolated(unsafe) let reading = aClass
        return loadDataRepresentation(forTypeIdentifier: typeIdentifier) { data, error in
            guard let data else { return completionHandler(nil, error) }
            do {
                completionHandler(try reading.object(withItemProviderData: data, typeIdentifier: typeIdentifier), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// Loads a `T`, such as a `String` or a `URL`, through its Foundation class, as Apple's
    /// `loadObject(ofClass:completionHandler:)` for bridged types. (`T` must have a metatype
    /// that may cross threads, as `String` and `URL` do, since the handler runs on another.)
    @discardableResult
    public func loadObject<T: _ObjectiveCBridgeable & SendableMetatype>(ofClass: T.Type,
                                                     completionHandler: @escaping @Sendable (T?, (any Error)?) -> Void) -> Progress
    where T._ObjectiveCType: NSItemProviderReading {
        loadObject(ofClass: T._ObjectiveCType.self) { object, error in
            completionHandler((object as? T._ObjectiveCType).map { T._unconditionallyBridgeFromObjectiveC($0) }, error)
        }
    }

    /// The members of `typeIdentifiers` that aren't registered yet.
    private func unregistered(_ typeIdentifiers: [String]) -> [String] {
        let registered = registeredTypeIdentifiers
        return typeIdentifiers.filter { type in !registered.contains { $0.caseInsensitiveCompare(type) == .orderedSame } }
    }

    /// The first registered type, in registration order, that conforms to a type `aClass` reads.
    private func readableType(for aClass: any NSItemProviderReading.Type) -> String? {
        let readable = aClass.readableTypeIdentifiersForItemProvider
        return representations().first { representation in readable.contains { representation.conforms(to: $0) } }?.typeIdentifier
    }
}

/// An object that writes its data when a consumer loads it, on a background queue, as
/// Apple's providers call it. The object is the provider's from then on.
private struct ObjectWriter: @unchecked Sendable {
    let object: any NSItemProviderWriting
}
