/// A change in the host app's state, which the extension's runtime posts as Apple's
/// notification of the same name, with the request's `NSExtensionContext` as its object.
///
/// It travels as a `PointMessage` of the request, named as Apple names the notification and
/// with an empty body: no point's own messages have these names.
public enum HostLifecycle: String, Sendable, CaseIterable {
    /// The host went to the background: stop work, as the extension has little time left.
    case didEnterBackground = "NSExtensionHostDidEnterBackgroundNotification"
    /// The host is coming back to the foreground.
    case willEnterForeground = "NSExtensionHostWillEnterForegroundNotification"
    /// The host is about to be inactive.
    case willResignActive = "NSExtensionHostWillResignActiveNotification"
    /// The host became active.
    case didBecomeActive = "NSExtensionHostDidBecomeActiveNotification"

    /// The change a point message carries, or nil if the message is a point's own.
    public init?(pointMessage: PointMessage) {
        self.init(rawValue: pointMessage.name)
    }
}
