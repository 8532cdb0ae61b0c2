import AppexLocking
import Foundation

/// Apple's key, in the options of ``NSItemProvider/loadPreviewImage(options:completionHandler:)``,
/// for the size the preview should have: an `NSValue` of a `CGSize`.
public let NSItemProviderPreferredImageSizeKey = "NSItemProviderPreferredImageSizeKey"

extension NSItemProvider {
    /// Gives a small image that stands for the item, for a user interface to show before it
    /// loads the item: Apple's `previewImageHandler`. The handler gets the completion handler
    /// to call once, with the image as data or a file URL, and the consumer's options.
    ///
    /// It crosses processes with the provider: an extension's ``loadPreviewImage(options:completionHandler:)``
    /// runs the host's handler when it is called, and the host's, the one on an item the
    /// extension returned, which ran before the extension ended.
    public var previewImageHandler: LoadHandler? {
        get { state.withLock { $0.previewImageHandler } }
        set { state.withLock { $0.previewImageHandler = newValue } }
    }

    /// Loads the preview image through ``previewImageHandler``, as Apple's does; with no
    /// handler, `completionHandler` gets `NSItemProvider.ErrorCode.itemUnavailableError`.
    public func loadPreviewImage(options: [AnyHashable: Any]! = [:], completionHandler: CompletionHandler!) {
        guard let handler = previewImageHandler else {
            completionHandler?(nil, NSItemProviderError(
                .itemUnavailableError, typeIdentifier: "preview image", registeredTypeIdentifiers: registeredTypeIdentifiers,
                reason: "the provider has no preview image handler; set previewImageHandler where the item is made"))
            return
        }
        handler(completionHandler, nil, options)
    }

    /// The preview image as an item representation of `typeIdentifier`, for a transport to
    /// load and carry to another process; nil without a ``previewImageHandler``.
    public func previewRepresentation(as typeIdentifier: String) -> Representation? {
        guard let handler = previewImageHandler else { return nil }
        let carrier = NSItemProvider()
        carrier.registerItem(forTypeIdentifier: typeIdentifier, loadHandler: handler)
        return carrier.representations().first
    }
}
