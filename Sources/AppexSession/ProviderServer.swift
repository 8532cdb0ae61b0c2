public import AppexItems
import AppexLocking
public import AppexSystem
public import AppexWire
public import Foundation
import Synchronization

/// The host's side of lazy loading: describes its items' providers to the extension, and
/// serves each ``LoadRequest`` by running the provider's handler for the type asked for,
/// and only then; the type ``AppexWire/WireRepresentation/previewTypeIdentifier`` runs its
/// `previewImageHandler`.
///
/// Providers are kept by request, so a request's providers are released when it ends.
/// Representations that a provider registered with ``NSItemProviderRepresentationVisibility/ownProcess``
/// are never described, and a load of a type the provider didn't describe is refused.
public final class ProviderServer: Sendable {
    private struct Entry {
        let requestID: UUID
        let provider: NSItemProvider
    }

    private let providers = Locked<[UInt64: Entry]>([:])
    private let nextID = Atomic<UInt64>(1)

    public init() {}

    /// Describes `items` for `requestID`, keeping their providers to serve loads.
    public func describe(_ items: [NSExtensionItem], for requestID: UUID) -> [WireItem] {
        items.map { item in
            let attachments = (item.attachments ?? []).map { provider in
                let id = nextID.add(1, ordering: .relaxed).oldValue
                providers.withLock { $0[id] = Entry(requestID: requestID, provider: provider) }
                let representations = provider.representations(crossingProcess: true).map {
                    WireRepresentation(typeIdentifier: $0.typeIdentifier, kind: $0.kind.wireKind, opensInPlace: $0.fileOptions.contains(.openInPlace))
                }
                let preview = provider.previewImageHandler.map { _ in WireRepresentation(typeIdentifier: WireRepresentation.previewTypeIdentifier, kind: .item) }
                return WireAttachment(providerID: id, suggestedName: provider.suggestedName, representations: representations, preview: preview)
            }
            return ItemFields.wireItem(item, attachments: attachments)
        }
    }

    /// Serves `load`: runs the handler of the representation it names, on a background
    /// queue, and passes the answer and its descriptors to `reply`, exactly once.
    public func serve(_ load: LoadRequest, reply: @escaping @Sendable (LoadResult, [FileDescriptor]) -> Void) {
        let entry = providers.withLock { $0[load.providerID] }
        guard let entry, entry.requestID == load.requestID else {
            reply(Self.failure(load, "attachment \(load.providerID) is not part of request \(load.requestID)"), [])
            return
        }
        let preview = load.typeIdentifier == WireRepresentation.previewTypeIdentifier
            ? entry.provider.previewRepresentation(as: load.typeIdentifier) : nil
        guard let representation = preview ?? entry.provider.representations(crossingProcess: true).first(where: {
            $0.typeIdentifier.caseInsensitiveCompare(load.typeIdentifier) == .orderedSame
        }) else {
            let offered = entry.provider.representations(crossingProcess: true).map(\.typeIdentifier)
            reply(Self.failure(load, "the attachment has no \(load.typeIdentifier) representation; it offers \(offered.joined(separator: ", "))",
                               code: NSItemProvider.ErrorCode.itemUnavailableError.rawValue, domain: NSItemProvider.errorDomain), [])
            return
        }
        DispatchQueue.global().async {
            representation.load { result in
                var slots = DescriptorSlots()
                let payload: Payload
                do {
                    payload = try PayloadEncoder.encode(result.get(), typeIdentifier: representation.typeIdentifier, into: &slots)
                } catch {
                    payload = .error(ErrorInfo(error))
                }
                reply(LoadResult(loadID: load.loadID, typeIdentifier: representation.typeIdentifier, payload: payload), slots.descriptors)
            }
        }
    }

    /// Releases the providers of `requestID`.
    public func release(_ requestID: UUID) {
        providers.withLock { $0 = $0.filter { $0.value.requestID != requestID } }
    }

    private static func failure(_ load: LoadRequest, _ message: String, code: Int = 9, domain: String = AppexErrorDomain.runtime) -> LoadResult {
        LoadResult(loadID: load.loadID, typeIdentifier: load.typeIdentifier,
                   payload: .error(ErrorInfo(domain: domain, code: code, message: message)))
    }
}

extension NSItemProvider.Representation.Kind {
    /// The kind as the wire numbers it.
    var wireKind: WireRepresentation.Kind {
        switch self {
        case .data: .data
        case .file: .file
        case .item: .item
        }
    }
}
