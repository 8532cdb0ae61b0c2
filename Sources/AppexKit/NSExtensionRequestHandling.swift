public import Foundation

/// The principal class of an extension: Apple's `NSExtensionRequestHandling`.
///
/// ``NSExtensionMain()`` finds the class that the bundle's Info.plist names under
/// `NSExtension` → `NSExtensionPrincipalClass`, as a module-qualified Swift name such as
/// `NotesAction.ActionRequestHandler` (Xcode writes `$(PRODUCT_MODULE_NAME).ActionRequestHandler`).
/// For each request a host sends, it makes an instance with the class's `init()` and calls
/// ``beginRequest(with:)`` on it, on the main thread. The instance is kept until the request
/// is answered.
///
/// ```swift
/// class ActionRequestHandler: NSObject, NSExtensionRequestHandling {
///     func beginRequest(with context: NSExtensionContext) {
///         guard let provider = (context.inputItems.first as? NSExtensionItem)?.attachments?.first, provider.canLoadObject(ofClass: String.self) else {
///             return context.cancelRequest(withError: CocoaError(.featureUnsupported))
///         }
///         provider.loadObject(ofClass: String.self) { text, error in
///             guard let text else { return context.cancelRequest(withError: error ?? CocoaError(.featureUnsupported)) }
///             let item = NSExtensionItem()
///             item.attachments = [NSItemProvider(object: text.uppercased() as NSString)]
///             context.completeRequest(returningItems: [item], completionHandler: nil)
///         }
///     }
/// }
/// ```
///
/// As on Apple's systems, the class is a subclass of `NSObject` (of a view controller, for
/// the points that show one), and need not be `final`. Swift on Linux has no Objective-C
/// runtime to send `init` to a class found by name, so AppexKit calls the slot of
/// `NSObject.init()` in the class's vtable, which the class inherits or overrides. A class
/// that declares another initializer and not `init()` traps there, as it does on Apple's.
public protocol NSExtensionRequestHandling: NSObjectProtocol {
    /// Starts serving a request. Finish it, now or later and from any thread, with the
    /// context's ``NSExtensionContext/completeRequest(returningItems:completionHandler:)``
    /// or ``NSExtensionContext/cancelRequest(withError:)``.
    func beginRequest(with context: NSExtensionContext)
}
