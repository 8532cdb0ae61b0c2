package import AppexItems
public import Foundation
import AppexWire
import Synchronization

/// A request as the extension sees it: the host's items, and the way to answer. Apple's
/// `NSExtensionContext`.
///
/// The context is `Sendable`: answer from any thread or task. Exactly one answer counts,
/// the first; a later one is ignored and logged, since the host has its outcome.
public final class NSExtensionContext: Sendable {
    /// The request's identifier, the one the host's `beginExtensionRequest` returned.
    public let requestIdentifier: UUID

    /// The host's items, each an ``NSExtensionItem``, typed `[Any]` as Apple's are: read
    /// them as `context.inputItems as! [NSExtensionItem]`. Their attachments load lazily
    /// from the host's providers: nothing crosses until the extension asks for a type.
    public var inputItems: [Any] { extensionItems }

    /// ``inputItems``, typed, for the points' modules.
    package let extensionItems: [NSExtensionItem]

    /// The request's own messages with the host, for the point's module (the compose sheet
    /// of Share, the content of a Today widget).
    public let pointChannel: PointChannel

    let runtime: ExtensionRuntime
    private let answered = Atomic(false)

    init(requestIdentifier: UUID, inputItems: [NSExtensionItem], runtime: ExtensionRuntime) {
        self.requestIdentifier = requestIdentifier
        extensionItems = inputItems
        self.runtime = runtime
        pointChannel = PointChannel(requestID: requestIdentifier, runtime: runtime)
    }

    /// Ends the request with `items` for the host.
    ///
    /// The items' attachments are loaded here, all at once, and sent with their content:
    /// small data inside the message, large data and files as descriptors. (Apple keeps them
    /// lazy, but this process ends soon after and could not serve later loads.) Then the
    /// host's completion block runs, and after it, `completionHandler` runs on the main
    /// queue with `expired` false. If the system ends the extension before the host has
    /// acknowledged the items, it runs with `expired` true.
    ///
    /// `items` are ``NSExtensionItem``s, typed `[Any]` as Apple's are; anything else in the
    /// array is left out, and named on standard error.
    public func completeRequest(returningItems items: [Any]?, completionHandler: (@Sendable (_ expired: Bool) -> Void)? = nil) {
        guard claimAnswer("completeRequest(returningItems:)") else { return }
        runtime.complete(requestIdentifier, items: extensionItems(of: items ?? []), completionHandler: completionHandler)
    }

    /// The ``NSExtensionItem``s of `items`; says what else was there.
    private func extensionItems(of items: [Any]) -> [NSExtensionItem] {
        items.enumerated().compactMap { index, item in
            guard let item = item as? NSExtensionItem else {
                ExtensionRuntime.log("completeRequest(returningItems:) got a \(type(of: item)) at index \(index), which is not an NSExtensionItem; it is left out")
                return nil
            }
            return item
        }
    }

    /// Ends the request with `items`; returns `expired` (see ``completeRequest(returningItems:completionHandler:)``).
    @discardableResult
    public func completeRequest(returningItems items: [Any]?) async -> Bool {
        await withCheckedContinuation { continuation in
            completeRequest(returningItems: items) { continuation.resume(returning: $0) }
        }
    }

    /// Ends the request without items: the host's cancellation block gets `error`.
    ///
    /// Apple's convention is an `NSError` in `NSCocoaErrorDomain` with `NSUserCancelledError`
    /// when the user cancelled; any error's domain, code, description and recovery
    /// suggestion reach the host.
    public func cancelRequest(withError error: any Error) {
        guard claimAnswer("cancelRequest(withError:)") else { return }
        runtime.cancel(requestIdentifier, error: ErrorInfo(error))
    }

    /// Asks the system to open `url`, as Apple's `open(_:completionHandler:)`.
    ///
    /// Only extension points whose policy allows it may open URLs (Today widgets, for one).
    /// The host is asked to confirm; then the installed app whose `CFBundleURLTypes` declares
    /// the URL's scheme is launched with it. Otherwise the handler gets `false`, and the
    /// reason is logged to standard error. The handler runs on the main queue.
    public func open(_ url: URL, completionHandler: (@Sendable (_ success: Bool) -> Void)? = nil) {
        runtime.open(url, for: requestIdentifier) { answer in
            DispatchQueue.main.async { completionHandler?(answer.opened) }
        }
    }

    /// Asks the system to open `url`; returns whether it did.
    @discardableResult
    public func open(_ url: URL) async -> Bool {
        await openURL(url).opened
    }

    /// Asks the system to open `url`, as ``open(_:completionHandler:)`` does; returns whether
    /// it did, and if not, why, for the extension to show.
    public func openURL(_ url: URL) async -> OpenURLAnswer {
        await withCheckedContinuation { continuation in
            runtime.open(url, for: requestIdentifier) { continuation.resume(returning: $0) }
        }
    }

    private func claimAnswer(_ call: String) -> Bool {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            ExtensionRuntime.log("\(call) was called after request \(requestIdentifier) was already answered; the host keeps the first answer")
            return false
        }
        runtime.answered(requestIdentifier)
        return true
    }
}

/// Whether the system opened a URL an extension asked it to, and if not, why.
public struct OpenURLAnswer: Sendable, Hashable {
    /// Whether an app was launched with the URL.
    public var opened: Bool
    /// Why not, for a person: empty when it was opened.
    public var reason: String
}
