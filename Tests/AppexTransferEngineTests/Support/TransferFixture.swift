import AppexRegistry
import AppexTestServer
import AppexTesting

/// What each transfer suite starts from: a private home with the Notes sample installed, to
/// own the transfers, and a real HTTP server on loopback, stopped when the suite goes.
class TransferFixture {
    let test: TestHome
    let registry: Registry
    let server: LoopbackHTTPServer

    init() async throws {
        test = try TestHome()
        registry = try Registry(home: test.home)
        try await AssembledSamples.install(into: registry, only: ["Notes.app"])
        server = try await LoopbackHTTPServer.start()
    }

    deinit {
        let server = server
        Task { await server.stop() }
    }
}
