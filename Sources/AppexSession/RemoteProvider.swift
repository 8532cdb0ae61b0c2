public import AppexItems
public import AppexWire
import Foundation

/// An ``NSItemProvider`` that stands for a provider in another process.
///
/// It registers each representation the other side described, of the same kind, with a
/// handler that asks `fetch` for the payload when, and only when, someone loads it. The
/// provider's own rules then apply unchanged: asking for `public.image` loads the
/// `public.jpeg` representation, and any representation loads as data, a file or an item.
/// A described preview image becomes its `previewImageHandler`, fetched the same way.
public enum RemoteProvider {
    /// Fetches the payload of one representation, and calls its completion once.
    public typealias Fetch = @Sendable (
        _ representation: WireRepresentation,
        _ completion: @escaping @Sendable (Result<ReceivedPayload, any Error>) -> Void
    ) -> Void

    /// A provider for `attachment` whose loads go through `fetch`.
    public static func make(_ attachment: WireAttachment, fetch: @escaping Fetch) -> NSItemProvider {
        let provider = NSItemProvider()
        // The other process's word, which a host may save a file under: a name, never a path.
        let name = attachment.suggestedName.map(ReceivedPayload.fileName)
        provider.suggestedName = name
        for representation in attachment.representations {
            let type = representation.typeIdentifier
            switch representation.kind {
            case .data:
                provider.registerDataRepresentation(forTypeIdentifier: type, visibility: .all) { completion in
                    fetch(representation) { result in
                        do { completion(try result.get().data(typeIdentifier: type), nil) } catch { completion(nil, error) }
                    }
                    return nil
                }
            case .file:
                provider.registerFileRepresentation(
                    forTypeIdentifier: type, fileOptions: representation.opensInPlace ? .openInPlace : [], visibility: .all
                ) { completion in
                    fetch(representation) { result in
                        do {
                            try result.get().withFile(typeIdentifier: type, suggestedName: name) { completion($0, false, nil) }
                        } catch {
                            completion(nil, false, error)
                        }
                    }
                    return nil
                }
            case .item:
                provider.registerValue(forTypeIdentifier: type) { completion in
                    fetch(representation) { result in
                        do { completion(try result.get().item(typeIdentifier: type, suggestedName: name), nil) } catch { completion(nil, error) }
                    }
                }
            }
        }
        if let preview = attachment.preview {
            provider.previewImageHandler = { completion, _, _ in
                fetch(preview) { result in
                    do {
                        completion?(try result.get().item(typeIdentifier: preview.typeIdentifier, suggestedName: name).itemValue.secureCodingObject, nil)
                    } catch {
                        completion?(nil, error)
                    }
                }
            }
        }
        return provider
    }
}
