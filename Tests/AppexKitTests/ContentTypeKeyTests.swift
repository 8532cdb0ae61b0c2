import AppexKit
import AppexTesting
import Foundation
import Testing

/// `URLResourceKey.contentTypeKey` exists, as Apple names it, and reading
/// `URLResourceValues.contentType`, which Foundation on Linux never fills, fails to build with
/// what to use instead, rather than reading `nil` at run time.
struct ContentTypeKeyTests {
    @Test func theKeyHasApplesNameAndAskingForItIsHarmless() throws {
        #expect(URLResourceKey.contentTypeKey.rawValue == "NSURLContentTypeKey")
        let url = URL(fileURLWithPath: #filePath)
        let values = try url.resourceValues(forKeys: [.contentTypeKey, .nameKey])
        #expect(values.name == url.lastPathComponent)
    }

    @Test(.enabled(if: SwiftTypeCheck.swiftc != nil, "no swiftc here"))
    func readingTheContentTypeFailsToBuildSayingWhatToUse() async throws {
        let result = try await SwiftTypeCheck.run(code: """
            import AppexKit
            import Foundation
            import UniformTypeIdentifiers
            func isImage(_ url: URL) throws -> Bool {
                try url.resourceValues(forKeys: [.contentTypeKey]).contentType?.conforms(to: .image) == true
            }
            """)
        #expect(result.status != 0)
        #expect(result.standardError.contains("is unavailable: Foundation on Linux computes no content type; use UTType(filenameExtension: url.pathExtension)"), "\(result.standardError)")
    }

    @Test(.enabled(if: SwiftTypeCheck.swiftc != nil, "no swiftc here"))
    func prefetchingTheKeyBuilds() async throws {
        let result = try await SwiftTypeCheck.run(code: """
            import AppexKit
            import Foundation
            func list(_ folder: URL) throws -> [URL] {
                try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentTypeKey])
            }
            """)
        #expect(result.status == 0, "\(result.standardError)")
    }
}
