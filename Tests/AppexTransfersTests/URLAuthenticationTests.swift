import AppexTransfers
import Foundation
import Testing

/// The values of a challenge, as Apple's: protection spaces, credentials and their names.
struct URLAuthenticationTests {
    @Test func aProtectionSpaceIsTheSameByHostPortSchemeRealmAndMethod() {
        let space = URLProtectionSpace(host: "Example.com", port: 443, protocol: NSURLProtectionSpaceHTTPS, realm: "team",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let again = URLProtectionSpace(host: "example.com", port: 443, protocol: "https", realm: "team",
                                       authenticationMethod: "NSURLAuthenticationMethodHTTPBasic")
        #expect(space == again && Set([space, again]).count == 1, "hosts compare without case")
        #expect(space.receivesCredentialSecurely && !space.isProxy() && space.proxyType == nil && space.distinguishedNames == nil)
        let plain = URLProtectionSpace(host: "example.com", port: 80, protocol: NSURLProtectionSpaceHTTP, realm: "team", authenticationMethod: nil)
        #expect(plain.authenticationMethod == NSURLAuthenticationMethodDefault && !plain.receivesCredentialSecurely && plain != space)
        let proxy = URLProtectionSpace(proxyHost: "proxy", port: 3128, type: NSURLProtectionSpaceHTTPProxy, realm: nil,
                                       authenticationMethod: NSURLAuthenticationMethodHTTPDigest)
        #expect(proxy.isProxy() && proxy.protocol == nil && proxy.proxyType == "http" && proxy.receivesCredentialSecurely)
    }

    @Test func namesHaveApplesValues() {
        #expect([NSURLAuthenticationMethodHTMLForm, NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
                 NSURLAuthenticationMethodClientCertificate, NSURLAuthenticationMethodServerTrust]
            == ["NSURLAuthenticationMethodHTMLForm", "NSURLAuthenticationMethodNTLM", "NSURLAuthenticationMethodNegotiate",
                "NSURLAuthenticationMethodClientCertificate", "NSURLAuthenticationMethodServerTrust"])
        #expect([NSURLProtectionSpaceFTP, NSURLProtectionSpaceHTTPSProxy, NSURLProtectionSpaceFTPProxy, NSURLProtectionSpaceSOCKSProxy]
            == ["ftp", "https", "ftp", "SOCKS"])
        #expect(URLSession.ResponseDisposition.becomeStream.rawValue == 3 && URLSession.AuthChallengeDisposition.rejectProtectionSpace.rawValue == 3)
        #expect(URLCredential.Persistence.synchronizable.rawValue == 3)
    }

    @Test func aCredentialAndAChallengeKeepWhatTheyAreGiven() {
        let credential = URLCredential(user: "ann", password: "pw", persistence: .forSession)
        #expect(credential.hasPassword && credential.certificates.isEmpty && credential == URLCredential(user: "ann", password: "pw", persistence: .forSession))
        #expect(credential != URLCredential(user: "ann", password: "other", persistence: .forSession))
        let space = URLProtectionSpace(host: "h", port: 80, protocol: "http", realm: nil, authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let sender = CountingSender()
        let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: credential, previousFailureCount: 2,
                                                   failureResponse: nil, error: nil, sender: sender)
        let copy = URLAuthenticationChallenge(authenticationChallenge: challenge, sender: sender)
        #expect(copy.protectionSpace == space && copy.proposedCredential == credential && copy.previousFailureCount == 2)
        copy.sender?.performDefaultHandling(for: copy)
        #expect(sender.withoutCredential == 1, "Apple's optional sender methods default to going on without one")
    }
}

final class CountingSender: URLAuthenticationChallengeSender, @unchecked Sendable {
    var withoutCredential = 0
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) { withoutCredential += 1 }
    func cancel(_ challenge: URLAuthenticationChallenge) {}
}
