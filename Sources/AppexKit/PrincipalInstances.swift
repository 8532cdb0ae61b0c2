import AppexWire
import Foundation

/// The principal objects of the requests in flight: one made for each request, as on
/// Apple's systems, and kept until the request is answered, so that a handler that keeps
/// nothing else of itself alive still hears its loads and timers.
@MainActor
final class PrincipalInstances {
    private let type: NSObject.Type
    private var serving: [UUID: any NSExtensionRequestHandling] = [:]

    init(of type: NSObject.Type) {
        self.type = type
    }

    /// Makes the request's principal object and calls its `beginRequest(with:)`.
    func begin(_ context: NSExtensionContext) {
        guard let handler = PrincipalClass.instantiate(type) else {
            let message = "the principal class \(String(reflecting: type)) has no init()"
            ExtensionRuntime.log("can't serve request \(context.requestIdentifier): \(message)")
            context.cancelRequest(withError: ErrorInfo(domain: AppexErrorDomain.runtime, code: 3, message: message,
                                                       recoverySuggestion: "Give the class an init(), or let it inherit NSObject's."))
            return
        }
        serving[context.requestIdentifier] = handler
        handler.beginRequest(with: context)
    }

    /// Lets go of the principal object of `requestID`, which is answered.
    func end(_ requestID: UUID) {
        serving.removeValue(forKey: requestID)
    }
}
