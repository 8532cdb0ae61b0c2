import AppexTesting
import Foundation
import Testing

/// Extension code that reaches for app-only API fails to compile, saying why, as it does
/// against Apple's SDK; code that stays within the extension API compiles. Each snippet is
/// type-checked by swiftc against the AppexKit this build made.
struct AppOnlyAPITests {
    func typecheck(_ code: String) async throws -> CommandRunner.Result {
        try await SwiftTypeCheck.run(code: code)
    }

    @Test(.enabled(if: SwiftTypeCheck.swiftc != nil, "no swiftc here"), arguments: [
        ("_ = UIApplication.self", "an app extension may not use the shared application object or its background tasks"),
        ("_ = AVCaptureDevice.self", "an app extension may not use the camera or the microphone"),
    ])
    func appOnlyAPIDoesNotCompileInAnExtension(use: String, reason: String) async throws {
        let result = try await typecheck("import AppexKit\nfunc handle() { \(use) }\n")
        #expect(result.status != 0)
        #expect(result.standardError.contains("is unavailable: \(reason)"), "\(result.standardError)")
    }

    @Test(.enabled(if: SwiftTypeCheck.swiftc != nil, "no swiftc here"))
    func theExtensionAPICompiles() async throws {
        let result = try await typecheck("""
            import AppexKit
            func handle(_ context: NSExtensionContext) { context.completeRequest(returningItems: context.inputItems) }
            """)
        #expect(result.status == 0, "\(result.standardError)")
    }
}
