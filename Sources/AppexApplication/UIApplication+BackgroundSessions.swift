import Foundation

extension UIApplication {
    /// The identifier of the background session whose events appexd launched the app for,
    /// or nil if it was launched for anything else.
    public var backgroundURLSessionIdentifier: String? {
        Self.backgroundURLSessionIdentifier(environment: ProcessInfo.processInfo.environment)
    }

    /// If appexd launched the app for a background session's events, calls `handler` with
    /// the session's identifier and a completion handler, as Apple's systems call the app
    /// delegate's `application(_:handleEventsForBackgroundURLSession:completionHandler:)`,
    /// and returns true; otherwise returns false at once.
    ///
    /// The handler re-creates the session with that identifier (AppexTransfers'
    /// `URLSession`), whose delegate then gets the events that waited, followed by
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`; that is when to call the
    /// completion handler. Calling it ends the process (status 0), as iOS suspends an app it
    /// woke once it is called: appexd launched it only for these events.
    ///
    /// ```swift
    /// UIApplication.shared.handleEventsForBackgroundURLSession { identifier, completionHandler in
    ///     uploads.completionHandler = completionHandler   // called from urlSessionDidFinishEvents
    ///     uploads.session = URLSession(configuration: .background(withIdentifier: identifier) …)
    /// }
    /// ```
    @discardableResult
    public func handleEventsForBackgroundURLSession(
        _ handler: (_ identifier: String, _ completionHandler: @escaping @Sendable () -> Void) -> Void
    ) -> Bool {
        guard let identifier = backgroundURLSessionIdentifier else { return false }
        handler(identifier) {
            fflush(nil)
            exit(0)
        }
        return true
    }

    /// appexd names the session in `APPEX_BACKGROUND_URL_SESSION` when it launches an app
    /// for its events.
    static func backgroundURLSessionIdentifier(environment: [String: String]) -> String? {
        environment["APPEX_BACKGROUND_URL_SESSION"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
