public import AppexIPC
public import AppexItems
public import AppexWire
import Foundation

/// Items that arrived complete, their payloads already in the message: what an extension
/// returns to its host.
///
/// Each provider holds its payloads, and the descriptors among them, until it is released.
public enum ReceivedItems {
    /// The items of `wire`, which came in `message`.
    public static func items(_ wire: [WireItem], in message: IncomingMessage) throws(ErrorInfo) -> [NSExtensionItem] {
        try wire.map { item throws(ErrorInfo) in
            let providers = try item.attachments.map { attachment throws(ErrorInfo) in
                var payloads: [String: ReceivedPayload] = [:]
                for representation in attachment.representations + (attachment.preview.map { [$0] } ?? []) {
                    guard let payload = representation.payload else {
                        throw AppexErrorDomain.runtimeError(
                            7, "a returned attachment's \(representation.typeIdentifier) representation came without its content")
                    }
                    payloads[representation.typeIdentifier] = try ReceivedPayload(payload, in: message, from: .extension)
                }
                let received = payloads
                return RemoteProvider.make(attachment) { representation, completion in
                    completion(.success(received[representation.typeIdentifier]!))
                }
            }
            return ItemFields.item(item, attachments: providers)
        }
    }
}
