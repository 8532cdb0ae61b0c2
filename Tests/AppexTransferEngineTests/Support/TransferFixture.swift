import AppexCore
import AppexRegistry
import AppexTestServer
import AppexTesting
import AppexTransferEngine
import Crypto
import Foundation
import Testing

/// What each transfer suite starts from: a private home with the Notes sample installed, to
/// own the transfers, and a real HTTP server on loopback, stopped when the suite goes. Given
/// a certificate authority, the server speaks HTTPS with a certificate that authority issued.
class TransferFixture {
    /// Short waits, so that five attempts take a moment.
    static let policy = TransferPolicy(firstRetryDelay: .milliseconds(50), longestRetryDelay: .milliseconds(200),
                                       progressInterval: .milliseconds(50), watchInterval: .milliseconds(50))

    let test: TestHome
    let registry: Registry
    let server: LoopbackHTTPServer

    init(tls: TestCertificateAuthority? = nil) async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
        try await AssembledSamples.install(into: registry, only: ["Notes.app"])
        server = try await LoopbackHTTPServer.start(tls: tls)
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }

    func download(_ path: String, timeout: TimeInterval = 60, resourceTimeout: TimeInterval = TransferTask.defaultResourceTimeout) -> TransferTask {
        SampleTransfers.download(server.url(path), into: test.home.groupsDirectory, timeout: timeout, resourceTimeout: resourceTimeout)
    }

    func upload(_ file: URL, to path: String) -> TransferTask {
        SampleTransfers.upload(file, to: server.url(path))
    }

    func makeFile(bytes count: Int) throws -> URL {
        try FileManager.default.createDirectory(at: test.scratch, withIntermediateDirectories: true)
        let url = test.scratch.appendingPathComponent("upload-\(count)")
        try Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }).write(to: url)
        return url
    }

    func sha256(of file: URL) throws -> String {
        SHA256.hash(data: try Data(contentsOf: file)).map { String(format: "%02x", $0) }.joined()
    }

    /// Runs an engine until `task` has ended, and returns it as it ended.
    func runUntilEnded(_ task: TransferTask, policy: TransferPolicy = TransferFixture.policy,
                       trustedCertificates: URL? = nil) async throws -> TransferTask {
        let engine = TransferEngine(registry: registry, downloadsFolder: test.home.groupsDirectory, policy: policy, trustedCertificates: trustedCertificates)
        let running = Task { await engine.run() }
        let ended = await eventually(seconds: 60) { (try? self.registry.transfer(task.id))?.state.isFinal == true }
        running.cancel()
        await running.value
        try #require(ended, "transfer \(task.request.url) ended: \(String(describing: try? registry.transfer(task.id)))")
        return try #require(try registry.transfer(task.id))
    }
}
