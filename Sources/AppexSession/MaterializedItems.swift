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
    /// `items` with their payloads, adding descriptors to `slots`.
    public static func wireItems(_ items: [NSExtensionItem], slots: inout DescriptorSlots) async throws(ErrorInfo) -> [WireItem] {
        var wire: [WireItem] = []
        var nextID: UInt64 = 1
        for item in items {
            var attachments: [WireAttachment] = []
            for provider in item.attachments ?? [] {
                var representations: [WireRepresentation] = []
                for representation in provider.representations(crossingProcess: true) {
                    let result = await withCheckedContinuation { continuation in
                        representation.load { continuation.resume(returning: $0) }
                    }
                    let payload: Payload
                    switch result {
                    case .success(let produced):
                        payload = try PayloadEncoder.encode(produced, typeIdentifier: representation.typeIdentifier, into: &slots)
                    case .failure(let error):
                        payload = .error(ErrorInfo(error))
                    }
                    representations.append(WireRepresentation(
                        typeIdentifier: representation.typeIdentifier, kind: representation.kind.wireKind,
                        opensInPlace: representation.fileOptions.contains(.openInPlace), payload: payload))
                }
                attachments.append(WireAttachment(providerID: nextID, suggestedName: provider.suggestedName, representations: representations))
                nextID += 1
            }
            wire.append(ItemFields.wireItem(item, attachments: attachments))
        }
        return wire
    }
}
