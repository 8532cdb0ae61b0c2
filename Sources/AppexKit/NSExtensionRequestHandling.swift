/// The principal class of an extension: Apple's `NSExtensionRequestHandling`.
///
/// ``NSExtensionMain()`` makes one instance of the class that the bundle's Info.plist names
/// under `NSExtension` → `NSExtensionPrincipalClass`, as a module-qualified Swift name such
/// as `NotesAction.UppercaseAction`, and calls ``beginRequest(with:)`` on the main thread
/// for each request a host sends.
///
/// ```swift
/// final class UppercaseAction: NSExtensionRequestHandling {
///     func beginRequest(with context: NSExtensionContext) {
///         Task {
///             let text = try await context.inputItems.first?.attachments?.first?
///                 .loadItem(forTypeIdentifier: "public.plain-text") as? String ?? ""
///             let item = NSExtensionItem()
///             item.attachments = [NSItemProvider(object: text.uppercased())]
///             await context.completeRequest(returningItems: [item])
///         }
///     }
/// }
/// ```
///
/// Swift on Linux has no Objective-C runtime to make an instance from a class name, so the
/// protocol asks for `init()`: a class without stored properties to set up gets it for free.
@MainActor
public protocol NSExtensionRequestHandling: AnyObject, Sendable {
    /// Makes the principal instance. Called once per process, before any request.
    init()

    /// Starts serving a request. Finish it, now or later, with the context's
    /// ``NSExtensionContext/completeRequest(returningItems:completionHandler:)`` or
    /// ``NSExtensionContext/cancelRequest(withError:)``.
    func beginRequest(with context: NSExtensionContext)
}
