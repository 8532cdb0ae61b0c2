import AppexCore
import AppexHost
import AppexRegistry
import AppexTesting
import Foundation
import Testing

/// Extensions and hosts in another language: Samples/Python's host and Action extension speak
/// the wire through the classes protoc generates from docs/wire.proto, here and now, and
/// nothing else of Appex's. They run against the real appexd, the extension in its sandbox.
@Suite(.timeLimit(.minutes(2)))
final class PythonPeerTests {
    let world: FaultWorld
    /// Where the generated wire_pb2.py is, for the host.
    let generated: URL

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    static let samples = repository.appendingPathComponent("Samples/Python")
    static let python = "/usr/bin/python3"
    static let upper = "com.example.python.upper"

    init() async throws {
        world = try FaultWorld()
        generated = world.test.scratch.appendingPathComponent("python")
        try FileManager.default.createDirectory(at: generated, withIntermediateDirectories: true)
        let protoc = try await CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/protoc"), environment: [:]).run([
            "--python_out=\(generated.path)", "--proto_path=\(Self.repository.path)/docs", "\(Self.repository.path)/docs/wire.proto",
        ])
        try #require(protoc.status == 0, "protoc (Debian's protobuf-compiler, which .ci/run installs): \(protoc.standardError)")
        try await world.startDaemon()
        try await installUpper()
    }

    /// Installs an app whose Action extension is Samples/Python/upper.py, with the wire module
    /// and the generated classes beside it in its bundle.
    func installUpper() async throws {
        var app = BundleBuilder.app("com.example.python", name: "PythonTools", in: world.test.scratch.appendingPathComponent("bundles"))
        app.addExtension("Upper", identifier: Self.upper, point: "com.apple.ui-services",
                         attributes: ["NSExtensionActivationRule": .dictionary(["NSExtensionActivationSupportsText": true])],
                         executable: Self.samples.appendingPathComponent("upper.py"))
        app.plugIns[0].info["CFBundleDisplayName"] = "Python Upper"
        let url = try app.write()
        let bundle = url.appendingPathComponent("PlugIns/Upper.appex")
        try FileManager.default.copyItem(at: Self.samples.appendingPathComponent("appex_wire.py"), to: bundle.appendingPathComponent("appex_wire.py"))
        try FileManager.default.copyItem(at: generated.appendingPathComponent("wire_pb2.py"), to: bundle.appendingPathComponent("wire_pb2.py"))
        let home = world.test.home
        _ = try await onThread { try Registry(home: home).install(appAt: url) }
    }

    /// A text file the host hands over by its descriptor.
    func note(_ text: String) throws -> URL {
        let url = world.test.scratch.appendingPathComponent("note-\(UUID().uuidString.prefix(6)).txt")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Runs Samples/Python/host.py on `identifier` and `file`, and returns the outcome it printed.
    func pythonHost(_ identifier: String, _ file: URL) async throws -> [String: Any] {
        var environment = world.appex.environment
        environment["PYTHONPATH"] = generated.path
        let run = try await CommandRunner(executable: URL(fileURLWithPath: Self.python), environment: environment)
            .run([Self.samples.appendingPathComponent("host.py").path, identifier, file.path])
        try #require(run.status == 0, "host.py exited with \(run.status): \(run.standardError)\n\(world.daemonLog)")
        let outcome = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        return try #require(outcome, "host.py printed: \(run.standardOutput)")
    }

    @Test func aPythonHostsFileReachesAPythonExtensionByItsDescriptorAndTheOutcomeComesBack() async throws {
        let outcome = try await pythonHost(Self.upper, try note("hello from a file\n"))
        #expect(outcome["outcome"] as? String == "completed", "\(outcome)\n\(world.daemonLog)")
        #expect(outcome["text"] as? [String] == ["HELLO FROM A FILE\n"], "\(outcome)")
        #expect(outcome["data"] as? [String] == ["HELLO FROM A FILE\n"], "\(outcome)")
        #expect(outcome["extension"] as? String == "Python Upper", "\(outcome)")
        #expect(!world.daemonLog.contains("crashed"), "\(world.daemonLog)")
    }

    @Test func appexsOwnHostUsesThePythonExtensionAsAnyOther() async throws {
        let file = try await world.appex.run(["action", "--to", Self.upper, try note("from swift").path])
        #expect(file.status == 0 && file.standardOutput.contains("FROM SWIFT"), "\(file.standardOutput)\(file.standardError)")
        let text = try await world.appex.run(["action", "--to", Self.upper, "--text", "typed"])
        #expect(text.status == 0 && text.standardOutput.contains("TYPED"), "\(text.standardOutput)\(text.standardError)")
    }

    @Test func aPythonHostHearsWhyASwiftExtensionEndedItsRequest() async throws {
        try await world.install("crashInRequest")
        let outcome = try await pythonHost(FaultWorld.identifier("crashInRequest"), try note("anything"))
        #expect(outcome["outcome"] as? String == "interrupted", "\(outcome)")
        #expect(outcome["reason"] as? String == "CRASHED", "\(outcome)")
        #expect((outcome["message"] as? String)?.contains("crashed") == true, "\(outcome)")
    }

    @Test func aPythonHostAskingForNoSuchExtensionIsToldSo() async throws {
        let outcome = try await pythonHost("com.example.nosuch", try note("anything"))
        #expect(outcome["outcome"] as? String == "not installed", "\(outcome)")
    }
}
