import AppexSamples
import AppexTesting
import Foundation
import Testing

/// Extension code that reaches for app-only API fails to compile, saying why, as it does
/// against Apple's SDK; code that stays within the extension API compiles. Each snippet is
/// type-checked by swiftc against the AppexKit this build made.
struct AppOnlyAPITests {
    static let modules = SampleApps.products.appendingPathComponent("Modules")
    /// The C modules AppexKit's modules import publicly.
    static let moduleMaps = ["CAppexKit", "CAppexLocking", "CAppexSystem"].map { SampleApps.products.appendingPathComponent("\($0).build/module.modulemap") }
    static let swiftc = ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"].first { FileManager.default.isExecutableFile(atPath: $0) }

    func typecheck(_ code: String) async throws -> CommandRunner.Result {
        let folder = try TemporaryDirectory()
        let source = folder.url.appendingPathComponent("Extension.swift")
        try Data(code.utf8).write(to: source)
        return try await CommandRunner(executable: URL(fileURLWithPath: try #require(Self.swiftc)), environment: ["PATH": "/usr/bin:/bin"])
            .run(["-typecheck", "-I", Self.modules.path] + Self.moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0.path)"] } + [source.path])
    }

    @Test(.enabled(if: swiftc != nil, "no swiftc here"), arguments: [
        ("_ = UIApplication.self", "an app extension may not use the shared application object or its background tasks"),
        ("_ = AVCaptureDevice.self", "an app extension may not use the camera or the microphone"),
    ])
    func appOnlyAPIDoesNotCompileInAnExtension(use: String, reason: String) async throws {
        let result = try await typecheck("import AppexKit\nfunc handle() { \(use) }\n")
        #expect(result.status != 0)
        #expect(result.standardError.contains("is unavailable: \(reason)"), "\(result.standardError)")
    }

    @Test(.enabled(if: swiftc != nil, "no swiftc here"))
    func theExtensionAPICompiles() async throws {
        let result = try await typecheck("""
            import AppexKit
            func handle(_ context: NSExtensionContext) { context.completeRequest(returningItems: context.inputItems) }
            """)
        #expect(result.status == 0, "\(result.standardError)")
    }
}
