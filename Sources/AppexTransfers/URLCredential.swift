import Foundation

/// A credential a task gives a server that asks for one, as Foundation's `URLCredential`:
/// here, a user name and a password, for HTTP Basic authentication.
open class URLCredential: Hashable, @unchecked Sendable {
    /// How long a credential is kept for later challenges of its protection space.
    public enum Persistence: UInt, Sendable {
        /// Used for this challenge only.
        case none = 0
        /// Kept while the session lasts.
        case forSession = 1
        /// Kept for good, on Apple's systems in the keychain; here, while the session lasts.
        case permanent = 2
        /// Kept for good and shared among the user's devices on Apple's; here, while the
        /// session lasts.
        case synchronizable = 3
    }

    public let user: String?
    public let password: String?
    public let persistence: Persistence

    /// A credential of `user` and `password`, kept as `persistence` says.
    public init(user: String, password: String, persistence: Persistence) {
        self.user = user
        self.password = password
        self.persistence = persistence
    }

    /// Whether the credential has a password; it has, as each credential here is a user's.
    open var hasPassword: Bool { password != nil }

    /// A client certificate's chain; always empty, as Appex's credentials are passwords.
    open var certificates: [Any] { [] }

    public static func == (lhs: URLCredential, rhs: URLCredential) -> Bool {
        lhs.user == rhs.user && lhs.password == rhs.password && lhs.persistence == rhs.persistence
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(user)
        hasher.combine(persistence)
    }
}
