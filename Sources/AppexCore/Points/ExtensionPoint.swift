/// A place that extensions can extend, named by an identifier such as `com.apple.share-services`.
public struct ExtensionPoint: Sendable, Hashable, Identifiable {
    /// Whether Appex can host extensions of a point on Linux.
    public enum Support: Sendable, Hashable {
        /// Appex hosts this point: extensions of it install and run.
        case hosted
        /// Apple defines this point, but no host on Linux runs it yet. Extensions of it install
        /// (so a whole app can be installed) but are never offered.
        case recognized
    }

    /// The point's identifier, the value of `NSExtensionPointIdentifier`.
    public var id: String
    /// A short name for people, such as "Share".
    public var name: String
    /// Whether Appex hosts the point or only recognizes it.
    public var support: Support
    /// What the point's extensions may do.
    public var policy: ExtensionPointPolicy

    public init(id: String, name: String, support: Support = .hosted, policy: ExtensionPointPolicy) {
        self.id = id
        self.name = name
        self.support = support
        self.policy = policy
    }
}
