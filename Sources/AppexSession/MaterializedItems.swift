public import AppexItems
public import AppexWire
import Foundation

/// Items described with their content: every representation a provider offers to other
/// processes is loaded now, and its payload put in the message.
///
/// An extension returns items this way, because its process ends soon after it completes
/// and can't serve loads later. A representation whose handler fails travels as that
/// error, and the host's load of it fails the same way.
public enum MaterializedItems {
    /// `items` at once, when none has an attachment and so nothing needs loading; `nil`
    /// otherwise. Answering without a task saves a thread hand-off per request.
    public static func wireItemsWithoutLoading(_ items: [NSExtensionItem]) -> [WireItem]? {
        guard items.allSatisfy({ $0.attachments?.isEmpty ?? true }) else { return nil }
        return items.map { ItemFields.wireItem($0, attachments: []) }
    }

    /// `items` with their payloads, adding descriptors to `slots`.
    public static func wireItems(_ items: [NSExtensionItem], slots: inout DescriptorSlots) async throws(ErrorInfo) -> [WireItem] {
        var wire: [WireItem] = []
        var nextID: UInt64 = 1
        for item in items {
            var attachments: [WireAttachment] = []
            for provider in item.attachments ?? [] {
                var representations: [WireRepresentation] = []
                for representation in provider.representations(crossingProcess: true) {
                    let (payload, filled) = try await encode(representation, into: slots)
                    slots = filled
                    representations.append(WireRepresentation(
                        typeIdentifier: representation.typeIdentifier, kind: representation.kind.wireKind,
                        opensInPlace: representation.fileOptions.contains(.openInPlace), payload: payload))
                }
                var preview: WireRepresentation?
                if let representation = provider.previewRepresentation(as: WireRepresentation.previewTypeIdentifier) {
                    let (payload, filled) = try await encode(representation, into: slots)
                    slots = filled
                    preview = WireRepresentation(typeIdentifier: representation.typeIdentifier, kind: .item, payload: payload)
                }
                attachments.append(WireAttachment(providerID: nextID, suggestedName: provider.suggestedName, representations: representations, preview: preview))
                nextID += 1
            }
            wire.append(ItemFields.wireItem(item, attachments: attachments))
        }
        return wire
    }

    /// Loads `representation` and encodes what it produced, adding any descriptor to a copy
    /// of `slots`. The encoding happens inside the load's completion, while a file the
    /// handler gave is still there: a handler may delete it, or the link to it, right after.
    private static func encode(
        _ representation: NSItemProvider.Representation, into slots: DescriptorSlots
    ) async throws(ErrorInfo) -> (Payload, DescriptorSlots) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<(Payload, DescriptorSlots), ErrorInfo>, Never>) in
            representation.load { loaded in
                var filled = slots
                switch loaded {
                case .success(let produced):
                    do throws(ErrorInfo) {
                        let payload = try PayloadEncoder.encode(produced, typeIdentifier: representation.typeIdentifier, into: &filled)
                        continuation.resume(returning: .success((payload, filled)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                case .failure(let error):
                    continuation.resume(returning: .success((.error(ErrorInfo(error)), filled)))
                }
            }
        }
        return try result.get()
    }
}
