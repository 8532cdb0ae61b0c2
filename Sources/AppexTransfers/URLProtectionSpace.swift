public import Foundation

/// A server, or a realm on it, that asks for a credential, as Foundation's
/// `URLProtectionSpace`: where a challenge came from and how it wants to be answered.
open class URLProtectionSpace: Hashable, @unchecked Sendable {
    public let host: String
    /// The server's port; the scheme's default when the URL names none.
    public let port: Int
    /// The URL's scheme (``NSURLProtectionSpaceHTTP``, ``NSURLProtectionSpaceHTTPS``); nil
    /// for a proxy's space.
    public let `protocol`: String?
    /// The realm the server named, if it named one.
    public let realm: String?
    /// How the server wants to be answered: one of the `NSURLAuthenticationMethod…` names.
    public let authenticationMethod: String
    /// The proxy's kind (`NSURLProtectionSpaceHTTPProxy`…), for a proxy's space.
    public let proxyType: String?

    /// A server's protection space. A nil method is ``NSURLAuthenticationMethodDefault``.
    public init(host: String, port: Int, protocol: String?, realm: String?, authenticationMethod: String?) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.realm = realm
        self.authenticationMethod = authenticationMethod ?? NSURLAuthenticationMethodDefault
        proxyType = nil
    }

    /// A proxy's protection space.
    public init(proxyHost host: String, port: Int, type: String?, realm: String?, authenticationMethod: String?) {
        self.host = host
        self.port = port
        self.protocol = nil
        self.realm = realm
        self.authenticationMethod = authenticationMethod ?? NSURLAuthenticationMethodDefault
        proxyType = type
    }

    /// Whether this is a proxy's space.
    open func isProxy() -> Bool { proxyType != nil }

    /// Whether a credential sent to the space is safe from being read on the way: over TLS,
    /// or by a method that sends no password itself.
    open var receivesCredentialSecurely: Bool {
        let scheme = `protocol` ?? proxyType
        return scheme == NSURLProtectionSpaceHTTPS
            || [NSURLAuthenticationMethodHTTPDigest, NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
                NSURLAuthenticationMethodClientCertificate, NSURLAuthenticationMethodServerTrust].contains(authenticationMethod)
    }

    /// The certificate authorities a server accepts for a client certificate; nil, as
    /// Appex's challenges ask for passwords only.
    open var distinguishedNames: [Data]? { nil }

    public static func == (lhs: URLProtectionSpace, rhs: URLProtectionSpace) -> Bool {
        lhs.host.lowercased() == rhs.host.lowercased() && lhs.port == rhs.port && lhs.protocol == rhs.protocol
            && lhs.realm == rhs.realm && lhs.authenticationMethod == rhs.authenticationMethod && lhs.proxyType == rhs.proxyType
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(host.lowercased())
        hasher.combine(port)
        hasher.combine(realm)
    }
}

/// The `NSURLAuthenticationMethod…` names of how a server wants to be answered, with
/// Apple's values.
public let NSURLAuthenticationMethodDefault = "NSURLAuthenticationMethodDefault"
public let NSURLAuthenticationMethodHTTPBasic = "NSURLAuthenticationMethodHTTPBasic"
public let NSURLAuthenticationMethodHTTPDigest = "NSURLAuthenticationMethodHTTPDigest"
public let NSURLAuthenticationMethodHTMLForm = "NSURLAuthenticationMethodHTMLForm"
public let NSURLAuthenticationMethodNTLM = "NSURLAuthenticationMethodNTLM"
public let NSURLAuthenticationMethodNegotiate = "NSURLAuthenticationMethodNegotiate"
public let NSURLAuthenticationMethodClientCertificate = "NSURLAuthenticationMethodClientCertificate"
public let NSURLAuthenticationMethodServerTrust = "NSURLAuthenticationMethodServerTrust"

/// The schemes and proxy kinds of a protection space, with Apple's values.
public let NSURLProtectionSpaceHTTP = "http"
public let NSURLProtectionSpaceHTTPS = "https"
public let NSURLProtectionSpaceFTP = "ftp"
public let NSURLProtectionSpaceHTTPProxy = "http"
public let NSURLProtectionSpaceHTTPSProxy = "https"
public let NSURLProtectionSpaceFTPProxy = "ftp"
public let NSURLProtectionSpaceSOCKSProxy = "SOCKS"
