import Crypto
public import Foundation
import SwiftASN1
import NIOSSL
import X509

/// A certificate authority made afresh for a test, and the certificate it issued to
/// 127.0.0.1 and localhost, so that ``LoopbackHTTPServer`` can speak HTTPS which a client
/// trusts only when told to trust this authority.
///
/// ```swift
/// let authority = try TestCertificateAuthority()
/// let server = try await LoopbackHTTPServer.start(tls: authority)
/// try authority.writeCertificate(to: trusted)   // what SSL_CERT_FILE names
/// ```
public struct TestCertificateAuthority: Sendable {
    /// The authority's certificate, PEM-encoded: what a client is to trust.
    public let certificatePEM: String
    /// The server's certificate and private key, DER-encoded.
    let serverCertificate: [UInt8]
    let serverKey: [UInt8]

    /// Makes the authority, and has it issue the server's certificate, for 127.0.0.1 and
    /// localhost or else for the DNS name `serverName`; both are valid from an hour ago for a day.
    public init(serverName: String? = nil) throws {
        let now = Date()
        let authorityKey = P256.Signing.PrivateKey()
        let authorityName = try DistinguishedName { CommonName("Appex test authority") }
        let authority = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(authorityKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: authorityName, subject: authorityName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(authorityKey)
        )
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: authorityName,
            subject: try DistinguishedName { CommonName(serverName ?? "127.0.0.1") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(serverName.map { [.dnsName($0)] } ?? [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])), .dnsName("localhost")])
            },
            issuerPrivateKey: .init(authorityKey)
        )
        certificatePEM = try authority.serializeAsPEM().pemString
        var serializer = DER.Serializer()
        try serializer.serialize(server)
        serverCertificate = serializer.serializedBytes
        self.serverKey = Array(serverKey.derRepresentation)
    }

    /// Writes the authority's certificate to `url`, as a file of trusted certificates.
    public func writeCertificate(to url: URL) throws {
        try Data(certificatePEM.utf8).write(to: url)
    }
}

extension TestCertificateAuthority {
    /// The server's side of TLS: its certificate and key.
    func serverConfiguration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: serverCertificate, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: serverKey, format: .der))
        )
    }
}
