import AppexSamples
import AppexTestServer
import AppexTesting
import Foundation
import Testing

/// A program that uses `URLSession.shared` without linking AppexNetworking is told, when it
/// makes the request, what to add; nothing is sent.
@Suite struct InProcessTransportTests {
    @Test func aProgramThatDoesNotLinkAppexNetworkingIsToldWhatToAdd() async throws {
        let server = try await LoopbackHTTPServer.start()
        let helper = AppexBuild.products.appendingPathComponent("AppexGroupsHelper")
        let run = try await CommandRunner(executable: helper, environment: ProcessInfo.processInfo.environment)
            .run(["in-process-get", server.url("/bytes/10").absoluteString])
        await server.stop()
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("refused NSURLErrorDomain -1002: this process can't make requests itself") == true, "\(run.standardOutput)")
        #expect(lines.last?.hasPrefix("Add .product(name: \"AppexNetworking\", package: \"appex\") to the target's dependencies") == true)
        #expect(server.seen.isEmpty, "nothing was sent")
    }
}
