import AppexTesting
import Foundation
import Testing

/// Extension code written as it is for Apple's platforms (Tests/Fixtures/ApplePorts), with
/// only the edits docs/porting.md allows, compiles in both language modes against the
/// modules this build made. The only warnings allowed are swiftc's wrong "always fails" on
/// casts from `any NSSecureCoding` to a bridged Swift type, which succeed (docs/porting.md).
struct ApplePortTests {
    static let ports = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/ApplePorts")

    @Test(.enabled(if: SwiftTypeCheck.swiftc != nil, "no swiftc here"),
          arguments: ["Action", "FileProvider", "Share", "Today"], [5, 6])
    func anExtensionWrittenForApplesPlatformsCompiles(point: String, languageMode: Int) async throws {
        let folder = Self.ports.appendingPathComponent(point)
        let sources = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "swift" }
        #expect(sources.count >= 2)
        let result = try await SwiftTypeCheck.run(sources, languageMode: languageMode)
        #expect(result.status == 0, "\(result.standardError)")
        let warnings = result.standardError.split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.allSatisfy { $0.contains("NSSecureCoding") && $0.contains("to unrelated type") && $0.contains("always fails") },
                "\(warnings.joined(separator: "\n"))")
    }
}
