/// A place that extensions can extend, named by an identifier such as `com.apple.share-services`.
///
/// The system defines some points (``hosted``); a containing app may declare more in its
/// Info.plist (docs/extension-points.md). Both kinds are this one value, and go through the
/// same code.
public struct ExtensionPoint: Sendable, Hashable, Identifiable {
    /// Whether Appex can host extensions of a point on Linux.
    public enum Support: Sendable, Hashable {
        /// Appex hosts this point: extensions of it install and run.
        case hosted
        /// Apple defines this point, but no host on Linux runs it yet. Extensions of it install
        /// (so a whole app can be installed) but are never offered.
        case recognized
    }

    /// Which apps' extensions may extend a point an app declares.
    public enum Visibility: String, Sendable, Hashable {
        /// Any app's extensions: the point is there for others to extend.
        case `public`
        /// Only the declaring app's own extensions.
        case `private`
    }

    /// The point's identifier, the value of `NSExtensionPointIdentifier`.
    public var id: String
    /// A short name for people, such as "Share".
    public var name: String
    /// Whether Appex hosts the point or only recognizes it.
    public var support: Support
    /// What the point's extensions may do.
    public var policy: ExtensionPointPolicy
    /// The app that declared the point in its Info.plist, or nil for a point the system defines.
    public var declaringApp: String?
    /// Which apps' extensions may extend it. The system's points are public.
    public var visibility: Visibility

    public init(id: String, name: String, support: Support = .hosted, policy: ExtensionPointPolicy,
                declaringApp: String? = nil, visibility: Visibility = .public) {
        self.id = id
        self.name = name
        self.support = support
        self.policy = policy
        self.declaringApp = declaringApp
        self.visibility = visibility
    }

    /// Whether extensions of the app `appIdentifier` may extend this point: any app's, when
    /// it is public; only the declaring app's, when it is private.
    public func admitsExtensions(ofApp appIdentifier: String) -> Bool {
        visibility == .public || declaringApp?.lowercased() == appIdentifier.lowercased()
    }
}
