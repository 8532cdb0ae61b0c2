public import Foundation
import AppexWire

extension NSNotification.Name {
    /// The host app went to the background; the object is the request's `NSExtensionContext`.
    public static let NSExtensionHostDidEnterBackground = NSNotification.Name(HostLifecycle.didEnterBackground.rawValue)
    /// The host app is coming back to the foreground; the object is the request's `NSExtensionContext`.
    public static let NSExtensionHostWillEnterForeground = NSNotification.Name(HostLifecycle.willEnterForeground.rawValue)
    /// The host app is about to be inactive; the object is the request's `NSExtensionContext`.
    public static let NSExtensionHostWillResignActive = NSNotification.Name(HostLifecycle.willResignActive.rawValue)
    /// The host app became active; the object is the request's `NSExtensionContext`.
    public static let NSExtensionHostDidBecomeActive = NSNotification.Name(HostLifecycle.didBecomeActive.rawValue)
}
