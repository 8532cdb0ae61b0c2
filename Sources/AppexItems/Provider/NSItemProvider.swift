import AppexCore
import AppexLocking
public import Foundation

/// A promise of typed data, a file or a value, loaded lazily: Apple's `NSItemProvider`.
///
/// A host app wraps what the user is sharing in providers and hands them, as the
/// attachments of ``NSExtensionItem``s, to an extension; the extension asks what types a
/// provider has and loads the one it can use. Nothing is loaded until someone asks.
///
/// ```swift
/// // Host: offer a JPEG and a caption.
/// let photo = NSItemProvider()
/// photo.registerDataRepresentation(forTypeIdentifier: "public.jpeg", visibility: .all) { completion in
///     completion(jpegBytes, nil)
///     return nil
/// }
/// let caption = NSItemProvider(object: "Sunset at the lake")
///
/// // Extension: take any image.
/// if photo.hasItemConformingToTypeIdentifier("public.image") {
///     let data = try await photo.loadDataRepresentation(for: .image)   // the JPEG
/// }
/// ```
///
/// The rules a load follows, as on Apple's platforms:
/// - **Conformance.** A request for a type is served by the first representation, in
///   registration order, whose type conforms to it: asking for `public.image` finds a
///   `public.jpeg` representation, and `public.data` finds any data-like one. A request
///   no representation conforms to fails with ``ErrorCode/itemUnavailableError``.
/// - **Coercion.** Any representation can be loaded as data, as a file or as an item; see
///   <doc:AppexItems#Coercions>.
/// - **Temporary files.** A file from ``loadFileRepresentation(forTypeIdentifier:completionHandler:)``
///   is a copy the provider removes as soon as the completion handler returns.
/// - **Threads.** Load handlers and completion handlers run on a background queue.
///
/// Registering a type that is already registered replaces its representation, which
/// keeps its place in the order.
///
/// The provider is `Sendable`: its registrations sit behind a mutex, and handlers run
/// outside it.
public final class NSItemProvider: Sendable {
    /// What gets a loaded item, and what an item load handler calls when its item is ready:
    /// Apple's `NSItemProvider.CompletionHandler`. The item is an `NSString`, `NSURL`,
    /// `NSData`, `NSNumber`, `NSDate`, or an `NSArray` or `NSDictionary` of those; read it
    /// with a cast (`item as? URL`, `item as? [String: Any]`).
    public typealias CompletionHandler = @Sendable (_ item: (any NSSecureCoding)?, _ error: (any Error)?) -> Void

    /// Produces an item on demand: Apple's `NSItemProvider.LoadHandler`. It gets the
    /// completion handler to call once, the class the consumer expects (always nil here:
    /// Swift's casts take its place), and the consumer's options.
    public typealias LoadHandler = @Sendable (
        _ completionHandler: CompletionHandler?,
        _ expectedClass: AnyClass?,
        _ options: [AnyHashable: Any]?
    ) -> Void

    /// Produces a Swift value on demand, as a transport or an initializer registers one.
    typealias ValueLoadHandler = @Sendable (
        _ completionHandler: @escaping @Sendable ((any NSItemProviderValue)?, (any Error)?) -> Void,
        _ options: [String: PropertyListValue]?
    ) -> Void

    /// Produces data on demand, as `registerDataRepresentation` takes it.
    typealias DataLoadHandler = @Sendable (@escaping @Sendable (Data?, (any Error)?) -> Void) -> Progress?

    /// Produces a file on demand, as `registerFileRepresentation` takes it.
    typealias FileLoadHandler = @Sendable (@escaping @Sendable (URL?, Bool, (any Error)?) -> Void) -> Progress?

    struct State {
        var representations: [Representation] = []
        var suggestedName: String?
        /// Where temporary copies go; `nil` for the system's temporary directory.
        var temporaryDirectory: URL?
        var previewImageHandler: LoadHandler?
    }

    let state = Locked(State())

    /// An empty provider, to which you register representations.
    public init() {}

    /// The file name, without extension, to give the data when it is written to a file.
    ///
    /// Providers made with ``init(contentsOf:)`` take the file's name; Apple's leave it
    /// `nil`, which loses the name on the way to the consumer.
    public var suggestedName: String? {
        get { state.withLock { $0.suggestedName } }
        set { state.withLock { $0.suggestedName = newValue } }
    }

    /// The directory temporary copies are made in. Tests point it at a folder of their own.
    var temporaryDirectory: URL {
        get { state.withLock { $0.temporaryDirectory } ?? FileManager.default.temporaryDirectory }
        set { state.withLock { $0.temporaryDirectory = newValue } }
    }

    /// Adds a representation, or replaces the one registered for the same type in place.
    func register(_ representation: Representation) {
        state.withLock { state in
            if let index = state.representations.firstIndex(where: {
                $0.typeIdentifier.caseInsensitiveCompare(representation.typeIdentifier) == .orderedSame
            }) {
                state.representations[index] = representation
            } else {
                state.representations.append(representation)
            }
        }
    }
}
