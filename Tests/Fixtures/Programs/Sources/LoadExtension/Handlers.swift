import AppexKit
import Foundation

/// Completes each request with an item whose text is the first input item's.
final class EchoHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        let item = NSExtensionItem()
        item.attributedContentText = (context.inputItems.first as? NSExtensionItem)?.attributedContentText
        context.completeRequest(returningItems: [item])
    }
}

/// Receives each request and never answers it, so only its host's cancellation ends it.
final class SilentHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {}
}

/// Aborts in each request, so appexd reports it crashed.
final class CrashingHandler: NSObject, NSExtensionRequestHandling {
    func beginRequest(with context: NSExtensionContext) {
        abort()
    }
}
