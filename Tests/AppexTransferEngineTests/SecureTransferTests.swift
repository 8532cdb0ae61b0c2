import AppexCore
import AppexRegistry
import AppexTestServer
import AppexTesting
import AppexTransferEngine
import Foundation
import Testing

/// The engine against a real HTTPS server on loopback, whose certificate a test authority
/// issued: trusted when the engine is told to trust that authority (as SSL_CERT_FILE tells
/// appex-transfers), refused at once, with the way out, when not.
@Suite final class SecureTransferTests: TransferFixture {
    /// The file of trusted certificates that holds the server's authority.
    var trusted: URL { test.scratch.appendingPathComponent("authority.pem") }

    init() async throws {
        let authority = try TestCertificateAuthority()
        try await super.init(tls: authority)
        try FileManager.default.createDirectory(at: test.scratch, withIntermediateDirectories: true)
        try authority.writeCertificate(to: trusted)
    }

    @Test func aDownloadOverHTTPSResumesWhereItWasDropped() async throws {
        server.script("/bytes/1000000", [.drop(after: 400_000)])
        let task = try registry.addTransfer(download("/bytes/1000000"))
        #expect(task.request.url.scheme == "https")
        let ended = try await runUntilEnded(task, trustedCertificates: trusted)
        #expect(ended.state == .completed && ended.statusCode == 206 && ended.attempts == 2, "\(ended)")
        #expect(server.seen("/bytes/1000000").last?.headers["range"]?.hasPrefix("bytes=") == true)
        let file = try Data(contentsOf: #require(ended.destination))
        #expect(file.count == 1_000_000 && GeneratedBytes.matches(file))
    }

    @Test func anUploadOverHTTPSDeliversEveryByte() async throws {
        let file = try makeFile(bytes: 3_000_000)
        let task = try registry.addTransfer(upload(file, to: "/upload/video"))
        let ended = try await runUntilEnded(task, trustedCertificates: trusted)
        #expect(ended.state == .completed && ended.statusCode == 201 && ended.attempts == 1, "\(ended)")
        #expect(server.uploads(at: "/upload/video") == [.init(bytes: 3_000_000, sha256: try sha256(of: file), idempotencyKey: task.id.uuidString)])
    }

    @Test func aServerWhoseCertificateIsNotTrustedIsRefusedAtOnceWithTheWayOut() async throws {
        let task = try registry.addTransfer(download("/bytes/1000"))
        let ended = try await runUntilEnded(task)
        #expect(ended.state == .failed && ended.attempts == 1, "an untrusted certificate is not retried: \(ended)")
        let reason = try #require(ended.error)
        #expect(reason.contains("127.0.0.1:\(server.port)") && reason.contains("certificate") && reason.contains("SSL_CERT_FILE"), "\(reason)")
        #expect(ended.errorCode == .serverCertificateHasUnknownRoot)
        #expect(server.seen.isEmpty, "no request was sent to a server not trusted")
    }

    @Test func anotherAuthoritysFileDoesNotMakeTheServerTrusted() async throws {
        let other = test.scratch.appendingPathComponent("other.pem")
        try TestCertificateAuthority().writeCertificate(to: other)
        let task = try registry.addTransfer(download("/bytes/1000"))
        let ended = try await runUntilEnded(task, trustedCertificates: other)
        #expect(ended.state == .failed && ended.attempts == 1 && ended.error?.contains("was not trusted") == true, "\(ended)")
    }

    @Test func aCertificateForAnotherNameIsRefusedAtOnce() async throws {
        let elsewhere = try TestCertificateAuthority(serverName: "files.example.com")
        let server = try await LoopbackHTTPServer.start(tls: elsewhere)
        let trusted = test.scratch.appendingPathComponent("elsewhere.pem")
        try elsewhere.writeCertificate(to: trusted)
        let task = try registry.addTransfer(SampleTransfers.download(server.url("/bytes/1000"), into: test.home.groupsDirectory))
        let ended = try await runUntilEnded(task, trustedCertificates: trusted)
        await server.stop()
        #expect(ended.state == .failed && ended.attempts == 1, "\(ended)")
        #expect(ended.error?.contains("the certificate of 127.0.0.1:\(server.port)") == true && ended.error?.contains("names another server") == true, "\(ended.error ?? "")")
        #expect(ended.errorCode == .serverCertificateUntrusted)
    }
}
